import type { IntegrationSummary } from "@/lib/dal/dashboard";
import { OUTCOMES, PERIODS, type PeriodSummary } from "@/lib/sales/dashboard";
import { CountsHeader } from "./counts-header";
import { formatCount, formatRate } from "./figures";

/**
 * One row per integration whose API key sold in the period, most sales first: a deployment has one or two, so the
 * rows are rendered here, not as the agents' are. The names link nowhere: the history filters by agent, not by
 * integration.
 */
export function IntegrationTable({
  period,
  integrations,
}: {
  period: PeriodSummary;
  integrations: IntegrationSummary[];
}) {
  return (
    <section aria-labelledby="integrations-title" className="space-y-3">
      <h2 id="integrations-title" className="text-lg font-semibold">
        Integrações (API) · {PERIODS[period.period].label.toLowerCase()}
      </h2>
      <div className="table-frame">
        <table className="data-table figures-table">
          <caption className="caption-bottom px-4 py-2 text-left text-sm text-slate-600">
            Uma venda que a integração fez em nome de um agente conta aqui e também na linha do agente, na
            tabela por agente.
          </caption>
          <CountsHeader who="Integração" />
          <tbody>
            {integrations.map((integration) => (
              <tr key={integration.integrationId}>
                <th scope="row">
                  <span data-name translate="no">
                    {integration.name}
                  </span>
                </th>
                <td>{formatCount(integration.total)}</td>
                {OUTCOMES.map((status) => (
                  <td key={status}>{formatCount(integration.counts[status])}</td>
                ))}
                <td>{formatRate(integration.acceptanceRate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
