import type { SaleDetail } from "@/lib/dal/sales";
import { ERASURE_LABELS, formatCpf, formatIsoDate, formatPhone } from "@/lib/format";
import { Card } from "./card";
import { FieldList } from "./field-list";

/**
 * The sale as it was sent, with the form's labels; `partnerSource` is configuration, kept for supervisors. An
 * erased sale shows the CPF's masked digits (all it keeps) and says why the rest is gone.
 */
export function SentData({ sale }: { sale: SaleDetail }) {
  const { request } = sale;
  const erased = sale.erasure ? ERASURE_LABELS[sale.erasure] : null;
  const rows: [string, string][] = [
    ["CPF", formatCpf(request.customerDocument)],
    ["Nome completo", erased ?? request.customerName],
    ["E-mail", erased ?? request.customerEmail],
    ["Telefone", erased ?? formatPhone(request.customerPhone)],
    ["Plano", sale.planName],
    [
      "Data de nascimento",
      erased ?? (request.birthDate ? formatIsoDate(request.birthDate) : "Não informada"),
    ],
    ["ID do cliente no parceiro", request.externalId ?? "Não informado"],
  ];
  return (
    <Card id="sent-title" title="Dados enviados">
      <FieldList fields={rows} />
    </Card>
  );
}
