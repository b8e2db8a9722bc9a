import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { getVisibleSale } from "@/lib/dal/sales";
import { resolveSaleAction } from "../../actions";
import { requireAgent } from "@/lib/dal/session";
import { formatCpf, formatDateTime, formatIsoDate, formatPhone, STATUS_LABELS } from "@/lib/format";

export const metadata: Metadata = { title: "Venda" };

export default async function SalePage({ params }: PageProps<"/sales/[id]">) {
  const { id } = await params;
  const agent = await requireAgent(`/sales/${id}`);
  const sale = await getVisibleSale(agent, id);
  if (!sale) notFound();
  const { request } = sale;

  const sent: [string, string][] = [
    ["CPF", formatCpf(request.customerDocument)],
    ["Nome completo", request.customerName],
    ["E-mail", request.customerEmail],
    ["Telefone", formatPhone(request.customerPhone)],
    ["Plano", sale.planName],
    ["Data de nascimento", request.birthDate ? formatIsoDate(request.birthDate) : "—"],
    ["ID do cliente no parceiro", request.externalId ?? "—"],
    ["Origem (partnerSource)", request.partnerSource ?? "—"],
  ];

  return (
    <section aria-labelledby="sale-title" className="space-y-6">
      <p>
        <Link href="/sales" className="text-sm text-brand-700 underline">
          ← Vendas
        </Link>
      </p>
      <h1 id="sale-title" className="text-2xl font-semibold">
        Venda {STATUS_LABELS[sale.status].toLowerCase()}
      </h1>
      <div className="grid gap-6 md:grid-cols-2">
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <h2 className="font-medium">Dados enviados</h2>
          <dl className="mt-3 space-y-2 text-sm">
            {sent.map(([label, value]) => (
              <div key={label}>
                <dt className="text-slate-500">{label}</dt>
                <dd className="break-words">{value}</dd>
              </div>
            ))}
          </dl>
        </div>
        <div className="space-y-6">
          <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
            <h2 className="font-medium">Linha do tempo</h2>
            <ol className="mt-3 space-y-2 text-sm">
              <li>
                {formatDateTime(sale.createdAt)} — registrada por {sale.agentName} e enviada ao fornecedor
                {sale.attempts > 1 ? ` (${sale.attempts} tentativas)` : ""}
              </li>
              {sale.resolvedAt ? (
                <li>
                  {formatDateTime(sale.resolvedAt)} — {STATUS_LABELS[sale.status]}: confirmado por{" "}
                  {sale.resolvedBy} com o fornecedor
                </li>
              ) : null}
              {sale.completedAt ? (
                <li>
                  {formatDateTime(sale.completedAt)} — {STATUS_LABELS[sale.status]}
                </li>
              ) : (
                <li>Aguardando a resposta do fornecedor</li>
              )}
            </ol>
          </div>
          {sale.canResolve ? (
            <form action={resolveSaleAction} className="rounded-lg border border-amber-300 bg-amber-50 p-6">
              <h2 className="font-medium">Confirmar com o fornecedor</h2>
              <p className="mt-1 text-sm text-slate-700">
                Consulte o fornecedor pelo protocolo abaixo e registre o que ele informar.
              </p>
              <input type="hidden" name="submissionId" value={sale.submissionId} />
              <div className="mt-3 flex flex-wrap gap-3">
                <button
                  type="submit"
                  name="resolution"
                  value="registered"
                  className="rounded-md bg-brand-700 px-4 py-2 text-sm font-medium text-white hover:bg-brand-800"
                >
                  A venda foi registrada
                </button>
                <button
                  type="submit"
                  name="resolution"
                  value="not-registered"
                  className="rounded-md border border-slate-400 bg-white px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-100"
                >
                  A venda não foi registrada
                </button>
              </div>
            </form>
          ) : null}
          <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
            <h2 className="font-medium">Resposta do fornecedor</h2>
            <dl className="mt-3 space-y-2 text-sm">
              <div>
                <dt className="text-slate-500">HTTP</dt>
                <dd>{sale.upstreamStatus ?? "sem resposta"}</dd>
              </div>
              <div>
                <dt className="text-slate-500">Mensagem</dt>
                <dd>{sale.upstreamMessage ?? "—"}</dd>
              </div>
              {sale.outcomeDetail ? (
                <div>
                  <dt className="text-slate-500">Detalhe</dt>
                  <dd className="font-mono">{sale.outcomeDetail}</dd>
                </div>
              ) : null}
              <div>
                <dt className="text-slate-500">Protocolo (submissionId)</dt>
                <dd className="font-mono break-all">{sale.submissionId}</dd>
              </div>
            </dl>
          </div>
        </div>
      </div>
    </section>
  );
}
