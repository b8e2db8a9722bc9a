import type { SaleStatus } from "@/lib/db/schema";
import { ERRORS, isConfigurationFailure, userMessageFor, type ErrorCode } from "@/lib/errors";
import { STATUS_LABELS } from "@/lib/format";
import type { PartnerSaleField } from "@/lib/partner-api/types";
import type { SaleField } from "@/lib/validation/sale";
import { formatProtocol } from "./protocol";

const isErrorCode = (value: string | null): value is ErrorCode => value !== null && value in ERRORS;

/** What the agent reads for each recorded outcome, in one place: the panel, the JSON API and the embed. */
export interface OutcomeView {
  status: Exclude<SaleStatus, "pending"> | "in-flight";
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
}

export interface OutcomeFacts {
  status: SaleStatus | "in-flight";
  protocol: string;
  upstreamStatus: number | null;
  /** The failure's error code, or why the outcome is unknown. */
  outcomeDetail: string | null;
  rejectedFields: readonly PartnerSaleField[] | null;
}

const title = (status: Exclude<SaleStatus, "pending">) => `Venda ${STATUS_LABELS[status].toLowerCase()}`;

const AGAIN_AS_NEW = "A correção é enviada como uma nova venda.";

/**
 * The provider's 409: this CPF already holds this plan. The plan is what the agent changes next (the CPF being
 * mistyped is the rarer case, so the words mention it without marking it).
 */
const ALREADY_HAS_PLAN: Partial<Record<SaleField, string>> = {
  planId: "O cliente já tem este plano: ofereça outro ou confira o CPF.",
};

function rejection(facts: OutcomeFacts): Pick<OutcomeView, "detail" | "fieldErrors"> {
  if (facts.upstreamStatus === 409) {
    return {
      detail: `O cliente já tem este plano. Ofereça outro plano ou confira o CPF. ${AGAIN_AS_NEW}`,
      fieldErrors: ALREADY_HAS_PLAN,
    };
  }
  const fieldErrors: Partial<Record<SaleField, string>> = {};
  for (const field of facts.rejectedFields ?? []) {
    if (field === "partnerSource") continue;
    fieldErrors[field] =
      field === "planId" && facts.upstreamStatus === 422
        ? "O fornecedor não reconhece este plano: escolha outro."
        : "O fornecedor recusou este campo: confira o valor com o cliente.";
  }
  return Object.keys(fieldErrors).length > 0
    ? { detail: `Corrija os campos marcados e envie de novo. ${AGAIN_AS_NEW}`, fieldErrors }
    : { detail: `Confira os dados com o cliente e envie de novo. ${AGAIN_AS_NEW}`, fieldErrors };
}

export function outcomeView(facts: OutcomeFacts): OutcomeView {
  const none = { customerScript: null, canRetry: false, fieldErrors: {} };
  switch (facts.status) {
    case "accepted":
      return {
        ...none,
        status: "accepted",
        title: title("accepted"),
        detail: "O fornecedor registrou a venda. Informe o protocolo ao cliente.",
      };
    case "rejected":
      return { ...none, status: "rejected", title: title("rejected"), ...rejection(facts) };
    case "failed": {
      // The failure's code was recorded with it; its words come from the one error table.
      const code = isErrorCode(facts.outcomeDetail) ? facts.outcomeDetail : "partner_api.unreachable";
      return {
        ...none,
        status: "failed",
        title: title("failed"),
        detail: userMessageFor(code),
        canRetry: !isConfigurationFailure(code),
      };
    }
    case "unknown":
      return {
        ...none,
        status: "unknown",
        title: title("unknown"),
        detail:
          "O fornecedor não confirmou se registrou a venda. Não envie de novo: um supervisor vai conferir com o fornecedor.",
        customerScript:
          "Recebemos o seu pedido e estamos confirmando com a operadora. Anote o protocolo " +
          `${formatProtocol(facts.protocol)}: se algo der errado, entraremos em contato.`,
      };
    case "pending":
    case "in-flight":
      return {
        ...none,
        status: "in-flight",
        title: "Venda em envio",
        detail: "Esta venda já está sendo enviada. Aguarde a resposta; não envie de novo.",
      };
  }
}
