import type { SaleDetail } from "@/lib/dal/sales";
import { formatCpf, formatIsoDate, formatPhone } from "@/lib/format";
import { Card } from "./card";
import { FieldList } from "./field-list";

/** The sale as it was sent, with the form's labels; `partnerSource` is configuration, kept for supervisors. */
export function SentData({ sale }: { sale: SaleDetail }) {
  const { request } = sale;
  const rows: [string, string][] = [
    ["CPF", formatCpf(request.customerDocument)],
    ["Nome completo", request.customerName],
    ["E-mail", request.customerEmail],
    ["Telefone", formatPhone(request.customerPhone)],
    ["Plano", sale.planName],
    ["Data de nascimento", request.birthDate ? formatIsoDate(request.birthDate) : "Não informada"],
    ["ID do cliente no parceiro", request.externalId ?? "Não informado"],
  ];
  return (
    <Card id="sent-title" title="Dados enviados">
      <FieldList fields={rows} />
    </Card>
  );
}
