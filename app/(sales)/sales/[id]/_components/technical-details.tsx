import type { SaleDetail } from "@/lib/dal/sales";
import { FieldList } from "./field-list";

/** For supervisors, collapsed: the names and codes a technician or the provider's support asks for. */
export function TechnicalDetails({ sale }: { sale: SaleDetail }) {
  const rows: [string, string][] = [
    ["Status HTTP", sale.upstreamStatus === null ? "sem resposta" : String(sale.upstreamStatus)],
    ["Código registrado", sale.outcomeDetail ?? "—"],
    ["Campos apontados", sale.rejectedFields?.join(", ") || "—"],
    ["submissionId (chave para sistemas)", sale.submissionId],
    ["Tentativas de envio", String(sale.attempts)],
    ["partnerSource", sale.request.partnerSource ?? "não enviado"],
  ];
  return (
    <details data-technical-details className="panel panel-compact text-sm">
      <summary className="cursor-pointer font-medium">Detalhes técnicos</summary>
      <FieldList fields={rows} className="mt-3 space-y-2" valueClassName="font-mono break-all" />
    </details>
  );
}
