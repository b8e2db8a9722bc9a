import Link from "next/link";
import { chipClassName } from "../../sales/_components/status-chips";
import type { AgentSummary } from "@/lib/dal/dashboard";
import { STATUS_LABELS } from "@/lib/format";
import { OUTCOMES, PERIODS, type Period, type PeriodSummary } from "@/lib/sales/dashboard";
import { formatCount, formatRate, historyLink } from "./figures";

/** One row per agent who sold in the period, most sales first; the period is picked by link (no script). */
export function AgentTable({ period, agents }: { period: PeriodSummary; agents: AgentSummary[] }) {
  return (
    <section aria-labelledby="agents-title" className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="agents-title" className="text-lg font-semibold">
          Por agente · {PERIODS[period.period].label.toLowerCase()}
        </h2>
        <nav aria-label="Período da tabela por agente" className="flex gap-2 text-sm">
          {(Object.keys(PERIODS) as Period[]).map((option) => (
            <Link
              key={option}
              href={`/dashboard?period=${option}`}
              aria-current={option === period.period ? "page" : undefined}
              className={chipClassName}
            >
              {PERIODS[option].label}
            </Link>
          ))}
        </nav>
      </div>
      {agents.length === 0 ? (
        <p className="panel text-slate-600">Nenhuma venda no período.</p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">
              Vendas por agente e resultado, {PERIODS[period.period].label.toLowerCase()}
            </caption>
            <thead className="border-b border-slate-200 bg-slate-50 text-slate-700">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium">
                  Agente
                </th>
                <th scope="col" className="px-4 py-2 text-right font-medium">
                  Vendas
                </th>
                {OUTCOMES.map((status) => (
                  <th key={status} scope="col" className="px-4 py-2 text-right font-medium whitespace-nowrap">
                    {STATUS_LABELS[status]}
                  </th>
                ))}
                <th scope="col" className="px-4 py-2 text-right font-medium whitespace-nowrap">
                  Taxa de aceitação
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {agents.map((agent) => (
                <tr key={agent.agentId}>
                  <th scope="row" className="px-4 py-2 font-normal">
                    <Link
                      href={historyLink({ ...period, agentId: agent.agentId })}
                      className="text-brand-700 underline"
                    >
                      {agent.name}
                    </Link>{" "}
                    <span className="text-slate-500">{agent.email}</span>
                  </th>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(agent.total)}</td>
                  {OUTCOMES.map((status) => (
                    <td key={status} className="px-4 py-2 text-right tabular-nums">
                      {formatCount(agent.counts[status])}
                    </td>
                  ))}
                  <td className="px-4 py-2 text-right tabular-nums">{formatRate(agent.acceptanceRate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
