import type { SaleEvidenceView } from "@/lib/dal/sale-evidence";
import { formatDateTime } from "@/lib/format";
import type { IntegrityProblem } from "@/lib/sales/evidence-integrity";
import { Card } from "./card";

/** What the check against the audit trail found, said so that a supervisor knows what to look for. */
function problemText(problem: IntegrityProblem): string {
  switch (problem.code) {
    case "not_recorded":
      return "nenhuma linha da trilha de auditoria (sale.evidence_recorded) traz o hash desta evidência";
    case "audit_row_edited":
      return `a linha nº ${problem.seq} da trilha de auditoria (${problem.action}) foi alterada depois de escrita`;
    case "audit_row_unlinked":
    case "audit_row_changed":
      return `a linha nº ${problem.seq} da trilha de auditoria (${problem.action}) não segue a linha anterior`;
    case "evidence_altered":
      return problem.fields.length > 0
        ? `o registro da evidência foi alterado: ${problem.fields.join(", ")} ${problem.fields.length === 1 ? "difere" : "diferem"} do que a trilha de auditoria registrou`
        : "o registro da evidência foi alterado: não confere mais com o hash que a trilha de auditoria registrou";
    case "evidence_missing":
    case "pack_evidence_hash":
    case "signature":
      return "o registro da evidência não confere com a trilha de auditoria";
  }
}

/** A scripted sale's evidence: the script as shown, what the customer confirmed and when, and whether it holds. */
export function SaleEvidence({
  evidence,
  submissionId,
  timeZone,
}: {
  evidence: SaleEvidenceView;
  submissionId: string;
  timeZone: string;
}) {
  const intact = evidence.problems.length === 0;
  return (
    <Card id="sale-evidence" title="Evidência da venda">
      <p
        data-evidence-check={intact ? "intact" : "altered"}
        className={`mt-3 text-sm font-medium ${intact ? "text-emerald-800" : "text-red-800"}`}
      >
        {intact
          ? "Evidência íntegra: confere com a trilha de auditoria"
          : `Evidência alterada: ${evidence.problems.map(problemText).join("; ")}.`}
      </p>
      <dl className="mt-3 space-y-2 text-sm">
        <div>
          <dt className="text-slate-500">Versão do roteiro</dt>
          <dd translate="no">{evidence.scriptVersion}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Hash do roteiro (SHA-256)</dt>
          <dd className="font-mono break-all">{evidence.scriptHash}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Roteiro como exibido ao agente</dt>
          <dd className="whitespace-pre-line">{evidence.scriptText}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Confirmações do cliente</dt>
          <dd>
            <ul className="list-disc space-y-1 pl-5">
              {evidence.confirmations.map((item) => (
                <li key={item.id}>
                  {item.text}{" "}
                  <span className="text-slate-500">
                    ({item.required ? "obrigatória" : "opcional"}; confirmada em{" "}
                    {formatDateTime(new Date(item.confirmedAt), timeZone)})
                  </span>
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">ID da gravação da chamada</dt>
          <dd>
            {evidence.recordingId !== null ? (
              <span className="font-mono break-all" translate="no">
                {evidence.recordingId}
              </span>
            ) : evidence.recordingErased ? (
              "apagado com os dados pessoais (o resumo SHA-256 foi mantido)"
            ) : (
              "não informado"
            )}
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Registrada por</dt>
          <dd>
            {evidence.agentName ?? "—"} · entrada{" "}
            <span className="font-mono" translate="no">
              {evidence.door}
            </span>{" "}
            · {formatDateTime(evidence.recordedAt, timeZone)}
          </dd>
        </div>
      </dl>
      {evidence.canDownloadPack ? (
        <p className="mt-4 text-sm">
          <a href={`/sales/${submissionId}/dispute-pack`} download className="text-brand-700 underline">
            Baixar pacote de contestação (JSON assinado)
          </a>
        </p>
      ) : null}
    </Card>
  );
}
