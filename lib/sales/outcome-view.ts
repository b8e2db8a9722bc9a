import type { SaleStatus } from "@/lib/db/schema";

/** When the answer itself was lost (server error, dropped connection): the same submission is safe to send. */
export const UNCONFIRMED_MESSAGE =
  "Não foi possível confirmar o envio. Envie novamente: se a venda já tiver sido registrada, ela não será duplicada.";

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
    case "failed":
      return detail === "partner_api.invalid_client" ||
        detail === "partner_api.token_rejected" ||
        detail === "partner_api.unauthorized"
        ? {
            status,
            title: "Serviço indisponível (credenciais do parceiro)",
            detail: "Nada foi enviado. Avise o suporte: a integração com o fornecedor precisa de ajuste.",
            canRetry: false,
          }
        : {
            status,
            title: "Serviço indisponível: nada foi enviado",
            detail: "Não conseguimos falar com o fornecedor. Tente enviar novamente em instantes.",
            canRetry: true,
          };
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
