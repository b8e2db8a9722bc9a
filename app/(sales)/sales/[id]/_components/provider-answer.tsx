import type { SaleDetail } from "@/lib/dal/sales";
import { providerAnswerSummary } from "@/lib/sales/provider-answer";
import type { PartnerSaleField } from "@/lib/provider/types";
import { Card } from "./card";

const FIELD_LABELS: Record<Exclude<PartnerSaleField, "partnerSource">, string> = {
  customerDocument: "CPF",
  customerName: "Nome completo",
  customerEmail: "E-mail",
  customerPhone: "Telefone",
  planId: "Plano",
  birthDate: "Data de nascimento",
  externalId: "ID do cliente no parceiro",
};

/** What the provider answered, in our words, and its own message quoted apart (it may be in any language). */
export function ProviderAnswer({ sale }: { sale: SaleDetail }) {
  const fields = (sale.rejectedFields ?? []).flatMap((field) =>
    field === "partnerSource" ? [] : [FIELD_LABELS[field]],
  );
  return (
    <Card id="answer-title" title="Resposta do fornecedor">
      <p className="mt-3 text-sm">{providerAnswerSummary(sale, sale.upstreamTimeoutMs)}</p>
      {fields.length > 0 ? (
        <p className="mt-2 text-sm">Campos apontados pelo fornecedor: {fields.join(", ")}.</p>
      ) : null}
      {sale.upstreamMessage ? (
        <figure className="mt-3 text-sm">
          <figcaption className="text-slate-500">Mensagem do fornecedor, nas palavras dele:</figcaption>
          <blockquote
            data-provider-message
            className="mt-1 border-l-4 border-slate-300 pl-3 break-words text-slate-800 italic"
          >
            “{sale.upstreamMessage}”
          </blockquote>
        </figure>
      ) : null}
    </Card>
  );
}
