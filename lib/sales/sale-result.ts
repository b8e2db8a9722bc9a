import type { Sale, SaleStatus } from "@/lib/db/schema";
import { ERRORS, isConfigurationFailure, userMessageFor, type ErrorCode } from "@/lib/errors";
import { saleTitle } from "@/lib/format";
import type { SaleField } from "@/lib/validation/sale";
import { formatProtocol } from "./protocol";

const isErrorCode = (value: string | null): value is ErrorCode => value !== null && value in ERRORS;

/**
 * What the agent and API clients learn about a submission, in one place: the form's panel, the JSON API and the
 * embed's event. No personal data, no upstream internals.
 */
export interface SaleResult {
  submissionId: string;
  /** The protocol as people read it, "7KQ2M-X9R4B". */
  protocol: string;
  /** The ledger's status; `pending` while another request with this submissionId waits for the provider. */
  status: SaleStatus;
  /** "Venda aceita", "Venda recusada"…: the status words of the history, the sale page and the export. */
  title: string;
  /** What happened and what the agent can do next, in our words; the provider's own message is shown apart. */
  detail: string;
  /** Words for the customer on the line, where the outcome leaves them waiting. */
  customerScript: string | null;
  /** May the agent press submit again with the same submissionId? */
  canRetry: boolean;
  /** The fields the provider's refusal points at, with what to do about each. */
  fieldErrors: Partial<Record<SaleField, string>>;
  /** The ledger held this submission before this request: its outcome is the first one's. */
  replay: boolean;
  /** The provider's own words, shown quoted, apart from ours. */
  upstreamMessage: string | null;
}

/** The ledger's columns a result is made of (erasure's, where the caller read them). */
export type RecordedSale = Pick<
  Sale,
  | "submissionId"
  | "protocol"
  | "status"
  | "upstreamStatus"
  | "upstreamMessage"
  | "outcomeDetail"
  | "rejectedFields"
> &
  Partial<ErasedOrNot>;

type ErasedOrNot = Pick<Sale, "personalDataErasedAt" | "erasureRequestedAt">;

/**
 * A sale that retention erased, or whose customer asked for erasure: history. Its submission id answers what was
 * recorded and never sells again with the customer's data (lib/db/queries/sales.ts `claimSubmission`).
 */
export const isHistory = (sale: Partial<ErasedOrNot>): boolean =>
  Boolean(sale.personalDataErasedAt || sale.erasureRequestedAt);

const AGAIN_AS_NEW = "A correção é enviada como uma nova venda.";

/**
 * The provider's 409: this CPF already holds this plan. The plan is what the agent changes next (the CPF being
 * mistyped is the rarer case, so the words mention it without marking it).
 */
const ALREADY_HAS_PLAN: Partial<Record<SaleField, string>> = {
  planId: "O cliente já tem este plano: ofereça outro ou confira o CPF.",
};

function rejection(sale: RecordedSale): Pick<SaleResult, "detail" | "fieldErrors"> {
  if (sale.upstreamStatus === 409) {
    return {
      detail: `O cliente já tem este plano. Ofereça outro plano ou confira o CPF. ${AGAIN_AS_NEW}`,
      fieldErrors: ALREADY_HAS_PLAN,
    };
  }
  const fieldErrors: Partial<Record<SaleField, string>> = {};
  for (const field of sale.rejectedFields ?? []) {
    if (field === "partnerSource") continue;
    fieldErrors[field] =
      field === "planId" && sale.upstreamStatus === 422
        ? "O fornecedor não reconhece este plano: escolha outro."
        : "O fornecedor recusou este campo: confira o valor com o cliente.";
  }
  return Object.keys(fieldErrors).length > 0
    ? { detail: `Corrija os campos marcados e envie de novo. ${AGAIN_AS_NEW}`, fieldErrors }
    : { detail: `Confira os dados com o cliente e envie de novo. ${AGAIN_AS_NEW}`, fieldErrors };
}

export function saleResult(sale: RecordedSale, replay: boolean): SaleResult {
  return {
    submissionId: sale.submissionId,
    protocol: formatProtocol(sale.protocol),
    status: sale.status,
    title: saleTitle(sale.status),
    ...outcomeWords(sale),
    replay,
    upstreamMessage: sale.upstreamMessage,
  };
}

function outcomeWords(
  sale: RecordedSale,
): Pick<SaleResult, "detail" | "customerScript" | "canRetry" | "fieldErrors"> {
  const none = { customerScript: null, canRetry: false, fieldErrors: {} };
  switch (sale.status) {
    case "accepted":
      return {
        ...none,
        detail: "O fornecedor registrou a venda. Informe o protocolo ao cliente.",
      };
    case "rejected":
      return { ...none, ...rejection(sale) };
    case "failed": {
      if (isHistory(sale)) {
        return {
          ...none,
          detail:
            "Esta venda não foi registrada, e os dados do cliente foram apagados (ou ele pediu que fossem): ela " +
            "não é enviada de novo. Para vender, comece uma nova venda com os dados do cliente.",
        };
      }
      // The failure's code was recorded with it; its words come from the one error table.
      const code = isErrorCode(sale.outcomeDetail) ? sale.outcomeDetail : "partner_api.unreachable";
      return {
        ...none,
        detail: userMessageFor(code),
        canRetry: !isConfigurationFailure(code),
      };
    }
    case "unknown":
      return {
        ...none,
        detail:
          "O fornecedor não confirmou se registrou a venda. Não envie de novo: um supervisor vai conferir com o fornecedor.",
        customerScript:
          "Recebemos o seu pedido e estamos confirmando com a operadora. Anote o protocolo " +
          `${formatProtocol(sale.protocol)}: se algo der errado, entraremos em contato.`,
      };
    case "pending":
      return {
        ...none,
        detail: "Esta venda já está sendo enviada. Aguarde a resposta; não envie de novo.",
      };
  }
}
