import type { SaleStatus } from "@/lib/db/schema";
import { ERRORS, isConfigurationFailure, userMessageFor, type ErrorCode } from "@/lib/errors";

const isErrorCode = (value: string | null): value is ErrorCode => value !== null && value in ERRORS;

/** What the agent reads for each recorded outcome (PRODUCT.md section 6), in one place. */
export interface OutcomeView {
  status: Exclude<SaleStatus, "pending"> | "in-flight";
  title: string;
  detail: string | null;
  /** May the agent press submit again with the same submissionId? */
  canRetry: boolean;
}

export function outcomeView(
  status: SaleStatus | "in-flight",
  upstreamMessage: string | null,
  detail: string | null,
): OutcomeView {
  switch (status) {
    case "accepted":
      return { status, title: "Venda enviada", detail: upstreamMessage, canRetry: false };
    case "rejected":
      return {
        status,
        title: "Venda recusada pelo fornecedor",
        detail: upstreamMessage
          ? `Resposta do fornecedor: ${upstreamMessage}`
          : "Corrija os dados e envie novamente.",
        canRetry: false,
      };
    case "failed": {
      // The failure's code was recorded with it; its words come from the one error table.
      const code = isErrorCode(detail) ? detail : "partner_api.unreachable";
      const configuration = isConfigurationFailure(code);
      return {
        status,
        title: configuration
          ? "Serviço indisponível (credenciais do parceiro)"
          : "Serviço indisponível: nada foi enviado",
        detail: userMessageFor(code),
        canRetry: !configuration,
      };
    }
    case "unknown":
      return {
        status,
        title: "Não foi possível confirmar a venda",
        detail: "Não reenvie esta venda: ela pode ter sido registrada. Um supervisor vai verificar.",
        canRetry: false,
      };
    case "pending":
    case "in-flight":
      return {
        status: "in-flight",
        title: "Esta venda já está sendo enviada",
        detail: "Aguarde a resposta; não envie de novo.",
        canRetry: false,
      };
  }
}
