import { SellerName } from "./seller-name";
import { StatusBadge } from "./status-badge";
import type { SaleListItem } from "@/lib/dal/sales-history";
import { formatDateTime } from "@/lib/format";

/** The history's rows, as wide as the screen allows; narrow screens scroll the columns after the status. */
export function SalesTable({
  sales,
  showAgent,
  timeZone,
}: {
  sales: SaleListItem[];
  showAgent: boolean;
  timeZone: string;
}) {
  // The status right after the date: the list is read for it.
  const columns = [
    "Data",
    "Situação",
    "Protocolo",
    "Cliente",
    "CPF",
    "Plano",
    "ID do cliente no parceiro",
    ...(showAgent ? ["Agente"] : []),
  ];
  return (
    <div className="table-frame">
      <table className="data-table">
        <caption className="sr-only">Vendas, das mais recentes às mais antigas</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sales.map((sale) => (
            <tr key={sale.submissionId}>
              <td className="whitespace-nowrap">
                {/* A plain link: 50 prefetching <Link>s would each add a client component to the page's payload. */}
                <a href={`/sales/${sale.submissionId}`}>
                  {formatDateTime(sale.createdAt, timeZone, "minutes")}
                </a>
              </td>
              <td data-status={sale.status}>
                <StatusBadge status={sale.status} />
              </td>
              <td className="font-mono whitespace-nowrap">{sale.protocol}</td>
              <td className={sale.erased ? "text-slate-500 italic" : undefined}>{sale.customerName}</td>
              <td className="font-mono whitespace-nowrap">{sale.maskedCpf}</td>
              <td className="whitespace-nowrap">{sale.planName}</td>
              <td className="break-all" data-customer-data>
                {sale.externalId ?? ""}
              </td>
              {showAgent ? (
                <td>
                  <SellerName agentName={sale.agentName} integrationName={sale.integrationName} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
