import type { Metadata, Route } from "next";
import Link from "next/link";
import { HistoryFilterForm } from "./_components/history-filter-form";
import { HistoryPagination } from "./_components/history-pagination";
import { SalesTable } from "./_components/sales-table";
import { StatusChips } from "./_components/status-chips";
import { noticeClass } from "@/components/ui/notice";
import { spendLimit } from "@/lib/dal/limits";
import { limitedMessage } from "@/lib/errors/wait";
import { appTimeZone } from "@/lib/dal/sales";
import { agentOptions, readHistoryPage, SEARCH_COUNT_CAP } from "@/lib/dal/sales-history";
import { requireAgent } from "@/lib/dal/session";
import { historyQuery, parseHistoryView, type HistoryParam } from "@/lib/sales/history-filter";

export const metadata: Metadata = { title: "Vendas" };

// Set-aside parameters that have no field of their own in the form are explained above it.
const FORM_FIELDS: readonly HistoryParam[] = ["q", "from", "to", "agent"];

export default async function SalesPage({ searchParams }: PageProps<"/sales">) {
  const view = parseHistoryView(await searchParams);
  const agent = await requireAgent(`/sales${historyQuery(view)}`);
  const supervisor = agent.role === "supervisor";
  const title = (
    <h1 id="sales-title" className="text-2xl font-semibold">
      {supervisor ? "Vendas da equipe" : "Minhas vendas"}
    </h1>
  );
  // Every page, search or not, reads the ledger: counted per person (lib/dal/limits.ts).
  const spent = await spendLimit("history", agent);
  if (!spent.ok) {
    return (
      <section aria-labelledby="sales-title" className="space-y-6">
        {title}
        <p role="alert" className={`${noticeClass("warning")} text-sm`}>
          {limitedMessage(spent.retryAfterSeconds)}
        </p>
      </section>
    );
  }
  const [history, agents] = await Promise.all([readHistoryPage(agent, view), agentOptions(agent)]);
  const { filter } = view;
  const filtered = Object.keys(filter).length > 0;
  const otherProblems = Object.entries(view.problems)
    .filter(([param]) => !FORM_FIELDS.includes(param as HistoryParam) || (param === "agent" && !supervisor))
    .map(([, message]) => message);

  return (
    <section aria-labelledby="sales-title" className="space-y-6">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        {title}
        <a
          href={`/sales/export${historyQuery({ filter })}`}
          download
          className="text-sm font-medium text-brand-700 underline hover:text-brand-800"
        >
          Exportar CSV
        </a>
      </div>
      {otherProblems.length > 0 ? (
        <div className={`${noticeClass("warning")} text-sm`}>
          <p className="font-medium">Parte do endereço foi ignorada:</p>
          <ul className="mt-1 list-disc pl-5">
            {otherProblems.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <HistoryFilterForm
        filter={filter}
        typed={view.typed}
        problems={view.problems}
        agents={supervisor ? agents : null}
      />
      <StatusChips filter={filter} counts={history.counts} countCap={SEARCH_COUNT_CAP} />
      {history.pageNotFound ? (
        <p className="panel text-slate-700">
          Esta página da lista não existe: o endereço pode estar incompleto.{" "}
          <Link href={`/sales${historyQuery({ filter })}` as Route} className="text-brand-700 underline">
            Ver as vendas mais recentes
          </Link>
        </p>
      ) : history.sales.length === 0 ? (
        <p className="panel text-slate-600">
          {filtered ? "Nenhuma venda encontrada com este filtro." : "Nenhuma venda por aqui."}
        </p>
      ) : (
        <>
          <SalesTable sales={history.sales} showAgent={supervisor} timeZone={appTimeZone()} />
          <HistoryPagination filter={filter} newerThan={history.newerThan} olderThan={history.olderThan} />
        </>
      )}
    </section>
  );
}
