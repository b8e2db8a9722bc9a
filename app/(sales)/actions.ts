"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { ActionState } from "@/lib/action-state";
import {
  inFlightResult,
  isSubmissionId,
  resolveSaleAsSupervisor,
  saleSchema,
  submitSaleAsAgent,
  type SaleResult,
} from "@/lib/dal/sales";
import { verifySession } from "@/lib/dal/session";
import { log } from "@/lib/log";
import { UNCONFIRMED_MESSAGE } from "@/lib/sales/outcome-view";
import { fieldErrorsOf, SALE_FIELDS, type SaleField } from "@/lib/validation/sale";

export type SaleActionState = ActionState<SaleField, SaleResult>;

export async function submitSaleAction(
  _previous: SaleActionState,
  formData: FormData,
): Promise<SaleActionState> {
  const agent = await verifySession();
  if (!agent) {
    return {
      ok: false,
      fieldErrors: {},
      message: "Sua sessão terminou. Entre novamente para enviar a venda.",
    };
  }
  const submissionId = formData.get("submissionId");
  if (!isSubmissionId(submissionId)) {
    return { ok: false, fieldErrors: {}, message: "Formulário desatualizado: recarregue a página." };
  }
  const raw = Object.fromEntries(SALE_FIELDS.map((field) => [field, String(formData.get(field) ?? "")]));
  const parsed = saleSchema().safeParse(raw);
  if (!parsed.success) {
    return { ok: false, fieldErrors: fieldErrorsOf(parsed.error), message: "Corrija os campos indicados." };
  }

  let submission;
  try {
    submission = await submitSaleAsAgent(agent, submissionId, parsed.data);
  } catch (error) {
    // The ledger keeps this submissionId: sending again replays whatever happened, never a second sale.
    log.error("sales.action_failed", { submissionId, error });
    return { ok: false, fieldErrors: {}, message: UNCONFIRMED_MESSAGE };
  }
  switch (submission.kind) {
    case "result":
      return { ok: true, data: submission.result, message: null };
    case "in-flight":
      return { ok: true, data: inFlightResult(submissionId), message: null };
    case "not-yours":
      return { ok: false, fieldErrors: {}, message: "Formulário desatualizado: recarregue a página." };
  }
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
