import Link from "next/link";
import { chipClassName } from "../../sales/_components/status-chips";
import type { AgentSummary } from "@/lib/dal/dashboard";
import { OUTCOMES, PERIODS, type Period, type PeriodSummary } from "@/lib/sales/dashboard";
import { AgentRows } from "./agent-rows";
import { CountsHeader } from "./counts-header";
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
        // Integrations may have sold alone meanwhile: their table says so.
        <p className="panel text-slate-600">Nenhum agente vendeu no período.</p>
      ) : (
        <div className="table-frame">
          <table className="data-table figures-table">
            <caption className="sr-only">
              Vendas por agente e resultado, {PERIODS[period.period].label.toLowerCase()}
            </caption>
            <CountsHeader who="Agente" />
            <tbody>
              <AgentRows
                rows={agents.map((agent) => [
                  historyLink({ ...period, agentId: agent.agentId }),
                  agent.name,
                  agent.email,
                  formatCount(agent.total),
                  ...OUTCOMES.map((status) => formatCount(agent.counts[status])),
                  formatRate(agent.acceptanceRate),
                ])}
              />
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
