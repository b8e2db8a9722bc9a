import type { Metadata, Route } from "next";
import Link from "next/link";
import { StatusBadge } from "./_components/status-badge";
import { appTimeZone, listVisibleSales } from "@/lib/dal/sales";
import { requireAgent } from "@/lib/dal/session";
import { formatDateTime, STATUS_LABELS } from "@/lib/format";
import { historyQuery, parseHistoryFilter, STATUS_FILTERS } from "@/lib/sales/history-filter";

export const metadata: Metadata = { title: "Vendas" };

export default async function SalesPage({ searchParams }: PageProps<"/sales">) {
  const filter = parseHistoryFilter(await searchParams);
  const agent = await requireAgent(`/sales${historyQuery(filter)}`);
  const sales = await listVisibleSales(agent, filter);
  const timeZone = appTimeZone();
  const supervisor = agent.role === "supervisor";
  // The status right after the date: the list is read for it, and narrow screens scroll the columns after.
  const columns = [
    "Data",
    "Situação",
    "Protocolo",
    "Cliente",
    "CPF",
    "Plano",
    ...(supervisor ? ["Agente"] : []),
  ];

  return (
    <section aria-labelledby="sales-title" className="space-y-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="sales-title" className="text-2xl font-semibold">
          {supervisor ? "Vendas da equipe" : "Minhas vendas"}
        </h1>
        <a
          href={`/sales/export${historyQuery(filter)}`}
          download
          className="text-sm font-medium text-brand-700 underline hover:text-brand-800"
        >
          Exportar CSV
        </a>
      </div>
      <nav aria-label="Filtrar por situação" className="flex flex-wrap gap-2 text-sm">
        {[undefined, ...STATUS_FILTERS].map((status) => (
          <Link
            key={status ?? "all"}
            href={`/sales${historyQuery({ status })}` as Route}
            aria-current={status === filter.status ? "page" : undefined}
            className="rounded-full border border-slate-300 px-3 py-1 text-slate-700 hover:border-brand-600 aria-[current=page]:border-brand-700 aria-[current=page]:bg-brand-700 aria-[current=page]:text-white"
          >
            {status ? STATUS_LABELS[status] : "Todas"}
          </Link>
        ))}
      </nav>
      {sales.length === 0 ? (
        <p className="rounded-lg border border-slate-200 bg-white p-6 text-slate-600">
          Nenhuma venda por aqui.
        </p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Vendas, das mais recentes às mais antigas</caption>
            <thead className="border-b border-slate-200 bg-slate-50 text-slate-700">
              <tr>
                {columns.map((column) => (
                  <th key={column} scope="col" className="px-4 py-2 font-medium">
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
                  <td className="px-4 py-2">{sale.customerName}</td>
                  <td className="px-4 py-2 font-mono whitespace-nowrap">{sale.maskedCpf}</td>
                  <td className="px-4 py-2">{sale.planName}</td>
                  {supervisor ? <td className="px-4 py-2">{sale.agentName}</td> : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
