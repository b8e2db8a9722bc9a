"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { ActionState } from "@/lib/action-state";
import { limitedMessage } from "@/lib/errors/wait";
import { settleSaleAsSupervisor } from "@/lib/dal/sales";
import { verifySession } from "@/lib/dal/session";
import { sellAsSignedInAgent, type KnownCustomer } from "@/lib/sales/sell";
import { userMessageFor } from "@/lib/errors";
import type { SaleResult } from "@/lib/sales/sale-result";
import { isSaleResolution } from "@/lib/sales/settlement";
import { isUuid } from "@/lib/validation/sale";
import { SALE_FIELDS, type SaleField } from "@/lib/validation/sale";
import { EVIDENCE_FORM_FIELDS, type EvidenceField } from "@/lib/validation/evidence";

export type SaleActionState = ActionState<SaleField | EvidenceField, SaleResult | KnownCustomer>;

export async function submitSaleAction(
  _previous: SaleActionState,
  formData: FormData,
): Promise<SaleActionState> {
  const sold = await sellAsSignedInAgent({
    channel: "form",
    submissionId: formData.get("submissionId"),
    fields: Object.fromEntries(
      [...SALE_FIELDS, ...EVIDENCE_FORM_FIELDS].map((field) => [field, formData.get(field) ?? ""]),
    ),
    knownCustomerConfirmed: formData.get("knownCustomer") === "confirmed",
  });
  if (sold.ok) return { ok: true, data: sold.result, message: null };
  return {
    ok: false,
    error: sold.code,
    fieldErrors: sold.fieldErrors ?? {},
    message:
      sold.code === "rate_limited" ? limitedMessage(sold.retryAfterSeconds) : userMessageFor(sold.code),
  };
}

/**
 * A supervisor settles an `unknown` sale after checking with the provider (the confirmation step of the sale page
 * posts here). The sale page then says what happened: settled now, or already settled by someone else.
 */
export async function settleSaleAction(formData: FormData): Promise<void> {
  const agent = await verifySession();
  if (!agent) redirect("/sign-in");
  const submissionId = formData.get("submissionId");
  const resolution = formData.get("resolution");
  if (!isUuid(submissionId)) redirect("/sales");
  if (!isSaleResolution(resolution)) redirect(`/sales/${submissionId}`);
  const settlement = await settleSaleAsSupervisor(agent, submissionId, resolution);
  if (settlement === "not-allowed") redirect(`/sales/${submissionId}`);
  revalidatePath(`/sales/${submissionId}`);
  redirect(`/sales/${submissionId}?settled=${settlement === "settled" ? "now" : "earlier"}`);
}
