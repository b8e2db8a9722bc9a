import type { Route } from "next";
import Link from "next/link";
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
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Vendas, das mais recentes às mais antigas</caption>
        <thead className="border-b border-slate-200 bg-slate-50 text-slate-700">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className="px-4 py-2 font-medium whitespace-nowrap">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {sales.map((sale) => (
            <tr key={sale.submissionId}>
              <td className="px-4 py-2 whitespace-nowrap">
                <Link href={`/sales/${sale.submissionId}` as Route} className="text-brand-700 underline">
                  {formatDateTime(sale.createdAt, timeZone, "minutes")}
                </Link>
              </td>
              <td className="px-4 py-2" data-status={sale.status}>
                <StatusBadge status={sale.status} />
              </td>
              <td className="px-4 py-2 font-mono whitespace-nowrap">{sale.protocol}</td>
              <td className={sale.erased ? "px-4 py-2 text-slate-500 italic" : "px-4 py-2"}>
                {sale.customerName}
              </td>
              <td className="px-4 py-2 font-mono whitespace-nowrap">{sale.maskedCpf}</td>
              <td className="px-4 py-2 whitespace-nowrap">{sale.planName}</td>
              <td className="px-4 py-2 break-all" data-customer-data>
                {sale.externalId ?? ""}
              </td>
              {showAgent ? <td className="px-4 py-2">{sale.agentName}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
