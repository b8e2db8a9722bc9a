"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { ActionState } from "@/lib/action-state";
import {
  isSubmissionId,
  resolveSaleAsSupervisor,
  type KnownCustomer,
  type SaleResult,
} from "@/lib/dal/sales";
import { verifySession } from "@/lib/dal/session";
import { sellAsSignedInAgent } from "@/lib/dal/sell";
import { userMessageFor } from "@/lib/errors";
import { SALE_FIELDS, type SaleField } from "@/lib/validation/sale";

export type SaleActionState = ActionState<SaleField, SaleResult | KnownCustomer>;

export async function submitSaleAction(
  _previous: SaleActionState,
  formData: FormData,
): Promise<SaleActionState> {
  const sold = await sellAsSignedInAgent({
    channel: "form",
    submissionId: formData.get("submissionId"),
    fields: Object.fromEntries(SALE_FIELDS.map((field) => [field, formData.get(field) ?? ""])),
    knownCustomerConfirmed: formData.get("knownCustomer") === "confirmed",
  });
  if (sold.ok) return { ok: true, data: sold.result, message: null };
  return { ok: false, fieldErrors: sold.fieldErrors ?? {}, message: userMessageFor(sold.code) };
}

/** A supervisor settles an `unknown` sale after checking with the provider. */
export async function resolveSaleAction(formData: FormData): Promise<void> {
  const agent = await verifySession();
  if (!agent) redirect("/sign-in");
  const submissionId = formData.get("submissionId");
  const resolution = formData.get("resolution");
  if (!isSubmissionId(submissionId) || (resolution !== "registered" && resolution !== "not-registered"))
    return;
  await resolveSaleAsSupervisor(agent, submissionId, resolution);
  revalidatePath(`/sales/${submissionId}`);
}
