import Link from "next/link";
import { FormField, inputClassName } from "@/components/ui/form-field";
import type { AgentOption } from "@/lib/dal/sales-history";
import { brazilianDay, type HistoryFilter, type HistoryParam } from "@/lib/sales/history-filter";
import { Button } from "@/components/ui/button";

/**
 * The history's filter as a plain GET form: it works without JavaScript and with the keyboard alone, and what it
 * submits is the address (bookmarkable, the back button works). A value the server set aside is shown as typed,
 * with its message, so it can be corrected.
 */
export function HistoryFilterForm({
  filter,
  typed,
  problems,
  agents,
}: {
  filter: HistoryFilter;
  /** The address's own values, for the fields whose value was set aside. */
  typed: Partial<Record<HistoryParam, string>>;
  problems: Partial<Record<HistoryParam, string>>;
  /** Supervisors only: the agents to narrow to. */
  agents: AgentOption[] | null;
}) {
  const shown = (param: "from" | "to") => {
    const day = filter[param];
    return problems[param] ? (typed[param] ?? "") : day ? brazilianDay(day) : "";
  };
  return (
    <form
      method="get"
      action="/sales"
      role="search"
      aria-label="Filtrar vendas"
      className="panel panel-compact grid gap-4 md:grid-cols-[minmax(16rem,2fr)_minmax(12rem,1fr)_9rem_9rem_auto] md:items-start"
    >
      <FormField
        id="history-search"
        label="Buscar"
        hint="CPF, nome, e-mail, telefone, ID do cliente no parceiro ou protocolo"
        error={problems.q}
      >
        {(control) => (
          <input
            {...control}
            name="q"
            type="search"
            defaultValue={problems.q ? (typed.q ?? "") : (filter.search ?? "")}
            className={inputClassName}
          />
        )}
      </FormField>
      {agents ? (
        <FormField id="history-agent" label="Agente" error={problems.agent}>
          {(control) => (
            <select {...control} name="agent" defaultValue={filter.agentId ?? ""} className={inputClassName}>
              <option value="">Todos os agentes</option>
              {agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.label}
                </option>
              ))}
            </select>
          )}
        </FormField>
      ) : (
        <div aria-hidden="true" className="hidden md:block" />
      )}
      <DayField param="from" label="De" value={shown("from")} error={problems.from} />
      <DayField param="to" label="Até" value={shown("to")} error={problems.to} />
      {/* The chips pick the status; the form keeps it. */}
      {filter.status ? <input type="hidden" name="status" value={filter.status} /> : null}
      <div className="flex items-center gap-3 md:mt-6">
        <Button type="submit">Filtrar</Button>
        <Link href="/sales" className="text-sm whitespace-nowrap text-brand-700 underline">
          Limpar filtros
        </Link>
      </div>
    </form>
  );
}

function DayField({
  param,
  label,
  value,
  error,
}: {
  param: "from" | "to";
  label: string;
  value: string;
  error: string | undefined;
}) {
  return (
    <FormField id={`history-${param}`} label={label} hint="DD/MM/AAAA" error={error}>
      {(control) => (
        <input
          {...control}
          name={param}
          inputMode="numeric"
          autoComplete="off"
          defaultValue={value}
          className={inputClassName}
        />
      )}
    </FormField>
  );
}
