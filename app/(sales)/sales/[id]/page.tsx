import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { StatusBadge } from "../_components/status-badge";
import { ProviderAnswer } from "./_components/provider-answer";
import { SaleEvidence } from "./_components/sale-evidence";
import { SaleTimeline } from "./_components/sale-timeline";
import { SentData } from "./_components/sent-data";
import { SettlePanel } from "./_components/settle-panel";
import { SettledNotice } from "./_components/settled-notice";
import { TechnicalDetails } from "./_components/technical-details";
import { getSaleEvidence } from "@/lib/dal/sale-evidence";
import { appTimeZone, getVisibleSale, type SaleDetail } from "@/lib/dal/sales";
import { requireAgent, verifySession } from "@/lib/dal/session";
import { formatDateTime, saleTitle } from "@/lib/format";
import { isSaleResolution, SETTLEMENT_WORDS } from "@/lib/sales/settlement";

type SearchParams = Awaited<PageProps<"/sales/[id]">["searchParams"]>;

/** `?settle=registered`: the confirmation step, for a sale the viewer may still settle. */
function settleStep(query: SearchParams, sale: SaleDetail) {
  return sale.canSettle && isSaleResolution(query.settle) ? query.settle : null;
}

export async function generateMetadata({
  params,
  searchParams,
}: PageProps<"/sales/[id]">): Promise<Metadata> {
  const agent = await verifySession();
  const sale = agent ? await getVisibleSale(agent, (await params).id) : null;
  if (!sale) return { title: "Venda" };
  // A new title is what Next.js announces after a navigation: the step, or the sale as it now stands.
  const step = settleStep(await searchParams, sale);
  return {
    title: step
      ? `Confirmar: ${SETTLEMENT_WORDS[step].choice.toLowerCase()}`
      : `${saleTitle(sale.status)} · ${sale.protocol}`,
  };
}

export default async function SalePage({ params, searchParams }: PageProps<"/sales/[id]">) {
  const { id } = await params;
  const agent = await requireAgent(`/sales/${id}`);
  const sale = await getVisibleSale(agent, id);
  if (!sale) notFound();
  const query = await searchParams;
  const settled = query.settled === "now" || query.settled === "earlier" ? query.settled : null;
  const timeZone = appTimeZone();
  const evidence = await getSaleEvidence(agent, id);

  return (
    <section aria-labelledby="sale-title" className="mx-auto max-w-3xl space-y-6">
      <p>
        <Link href="/sales" className="text-sm text-brand-700 underline">
          ← Vendas
        </Link>
      </p>
      <h1 id="sale-title" className="text-2xl font-semibold">
        {saleTitle(sale.status)}
      </h1>
      {settled ? <SettledNotice sale={sale} settled={settled} timeZone={timeZone} /> : null}
      <dl className="panel panel-compact flex flex-wrap items-end gap-x-8 gap-y-3">
        <div>
          <dt className="text-sm text-slate-500">Protocolo</dt>
          <dd className="font-mono text-2xl font-semibold tracking-wider">{sale.protocol}</dd>
        </div>
        <div>
          <dt className="text-sm text-slate-500">Situação</dt>
          <dd>
            <StatusBadge status={sale.status} />
          </dd>
        </div>
        <div>
          {/* An integration's API key may have sold it, alone or on the agent's behalf. */}
          {sale.agentName === null ? (
            <>
              <dt className="text-sm text-slate-500">Integração</dt>
              <dd>
                <span data-name translate="no">
                  {sale.integrationName}
                </span>
              </dd>
            </>
          ) : (
            <>
              <dt className="text-sm text-slate-500">Agente</dt>
              <dd>
                {sale.agentName}
                {sale.integrationName === null ? null : (
                  <span className="text-slate-500">
                    {" "}
                    · via integração{" "}
                    <span data-name translate="no">
                      {sale.integrationName}
                    </span>
                  </span>
                )}
              </dd>
            </>
          )}
        </div>
        <div>
          <dt className="text-sm text-slate-500">Enviada em</dt>
          <dd>{formatDateTime(sale.createdAt, timeZone)}</dd>
        </div>
      </dl>
      {sale.canSettle ? <SettlePanel sale={sale} step={settleStep(query, sale)} timeZone={timeZone} /> : null}
      <div className="grid gap-6 md:grid-cols-2">
        <SentData sale={sale} />
        <div className="space-y-6">
          <ProviderAnswer sale={sale} />
          <SaleTimeline sale={sale} timeZone={timeZone} />
        </div>
      </div>
      {evidence ? (
        <SaleEvidence evidence={evidence} submissionId={sale.submissionId} timeZone={timeZone} />
      ) : null}
      {agent.role === "supervisor" ? <TechnicalDetails sale={sale} /> : null}
    </section>
  );
}
