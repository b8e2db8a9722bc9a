import type { Metadata, Route } from "next";
import Link from "next/link";
import { listVisibleSales } from "@/lib/dal/sales";
import { requireAgent } from "@/lib/dal/session";
import type { SaleStatus } from "@/lib/db/schema";
import { formatDateTime, STATUS_LABELS } from "@/lib/format";

export const metadata: Metadata = { title: "Vendas" };

const FILTERS: (SaleStatus | undefined)[] = [undefined, "unknown", "failed", "rejected", "accepted"];

export default async function SalesPage({ searchParams }: PageProps<"/sales">) {
  const { status } = await searchParams;
  const agent = await requireAgent(status ? `/sales?status=${status}` : "/sales");
  const filter = FILTERS.find((candidate) => candidate && candidate === status);
  const sales = await listVisibleSales(agent, filter);
  const supervisor = agent.role === "supervisor";
  const columns = ["Data", "Cliente", "CPF", "Plano", ...(supervisor ? ["Agente"] : []), "Situação"];

  return (
    <section aria-labelledby="sales-title" className="space-y-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 id="sales-title" className="text-2xl font-semibold">
          {supervisor ? "Vendas da equipe" : "Minhas vendas"}
        </h1>
        <nav aria-label="Filtrar por situação" className="flex flex-wrap gap-2 text-sm">
          {FILTERS.map((candidate) => (
            <Link
              key={candidate ?? "all"}
              href={(candidate ? `/sales?status=${candidate}` : "/sales") as Route}
              aria-current={candidate === filter ? "page" : undefined}
              className="rounded-full border border-slate-300 px-3 py-1 text-slate-700 hover:border-brand-600 aria-[current=page]:border-brand-700 aria-[current=page]:bg-brand-700 aria-[current=page]:text-white"
            >
              {candidate ? STATUS_LABELS[candidate] : "Todas"}
            </Link>
          ))}
        </nav>
      </div>
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
                      {formatDateTime(sale.createdAt)}
                    </Link>
                  </td>
                  <td className="px-4 py-2">{sale.customerName}</td>
                  <td className="px-4 py-2 font-mono whitespace-nowrap">{sale.maskedCpf}</td>
                  <td className="px-4 py-2">{sale.planName}</td>
                  {supervisor ? <td className="px-4 py-2">{sale.agentName}</td> : null}
                  <td className="px-4 py-2" data-status={sale.status}>
                    {STATUS_LABELS[sale.status]}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
