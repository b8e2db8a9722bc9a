import { STATUS_LABELS } from "@/lib/format";
import { OUTCOMES } from "@/lib/sales/dashboard";

/** The head of a table of counts per seller (`who`: "Agente", "Integração"): sales, each outcome, acceptance. */
export function CountsHeader({ who }: { who: string }) {
  return (
    <thead>
      <tr>
        <th scope="col">{who}</th>
        <th scope="col">Vendas</th>
        {OUTCOMES.map((status) => (
          <th key={status} scope="col">
            {STATUS_LABELS[status]}
          </th>
        ))}
        <th scope="col">Taxa de aceitação</th>
      </tr>
    </thead>
  );
}
