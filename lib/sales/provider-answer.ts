import type { SaleResolution, SaleStatus } from "@/lib/db/schema";

export interface AnswerFacts {
  status: SaleStatus;
  upstreamStatus: number | null;
  /** The failure's error code, or why the answer is unknown (lib/provider/client.ts, lib/db/queries/sales.ts). */
  outcomeDetail: string | null;
  resolution: SaleResolution | null;
  completedAt: Date | null;
  settledAt: Date | null;
}

/**
 * The status the provider's answer itself gave. A settled sale's status is the supervisor's; its answer was
 * `unknown` — unless the settlement came first ("not registered") and the sale was sent again afterwards.
 */
export function answeredStatus(facts: AnswerFacts): SaleStatus {
  const settledAfterAnswer =
    facts.resolution !== null &&
    facts.settledAt !== null &&
    facts.completedAt !== null &&
    facts.settledAt >= facts.completedAt;
  return settledAfterAnswer ? "unknown" : facts.status;
}

const seconds = (ms: number) => (ms / 1000).toLocaleString("pt-BR", { maximumFractionDigits: 1 });
const withStatus = (text: string, httpStatus: number | null) =>
  httpStatus === null ? `${text}.` : `${text} (${httpStatus}).`;

/** Why no trustworthy answer came back: the reasons the client and the stale-call sweep record. */
function unknownReason(facts: AnswerFacts, timeoutMs: number): string {
  switch (facts.outcomeDetail) {
    case "timeout":
      return `O fornecedor não respondeu em ${seconds(timeoutMs)} s.`;
    case "server-error":
      return withStatus("O fornecedor teve um erro", facts.upstreamStatus);
    case "malformed-answer":
      return withStatus("O fornecedor respondeu num formato que não conseguimos ler", facts.upstreamStatus);
    case "connection-lost":
      return "A conexão com o fornecedor caiu antes da resposta.";
    case "interrupted":
      return "O envio foi interrompido antes da resposta: o aplicativo foi reiniciado.";
    default:
      return "O motivo não foi registrado.";
  }
}

/** Why nothing reached the provider: the `failed` outcome's error code (lib/errors). */
function failureReason(code: string | null): string {
  switch (code) {
    case "partner_api.invalid_client":
    case "partner_api.token_rejected":
      return "Nada foi enviado: o fornecedor recusou as credenciais da integração.";
    case "partner_api.token_unreachable":
    case "partner_api.token_unavailable":
      return "Nada foi enviado: não foi possível obter a autorização do fornecedor.";
    case "partner_api.unauthorized":
      return "O fornecedor recusou o acesso da integração à venda: nada foi registrado.";
    default:
      return "Nada foi enviado: não foi possível conectar ao fornecedor.";
  }
}

/** What the provider answered, in our words (its own message is shown apart, quoted). */
export function providerAnswerSummary(facts: AnswerFacts, timeoutMs: number): string {
  switch (answeredStatus(facts)) {
    case "pending":
      return "Aguardando a resposta do fornecedor.";
    case "accepted":
      return "O fornecedor aceitou a venda.";
    case "rejected":
      if (facts.upstreamStatus === 409) return "O fornecedor recusou a venda: o cliente já tem este plano.";
      if (facts.upstreamStatus === 422) return "O fornecedor recusou a venda: ele não reconhece o plano.";
      return "O fornecedor recusou a venda.";
    case "failed":
      return failureReason(facts.outcomeDetail);
    case "unknown":
      return `Sem resposta confirmada do fornecedor. ${unknownReason(facts, timeoutMs)}`;
  }
}
