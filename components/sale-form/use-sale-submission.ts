"use client";

import { startTransition, useActionState, useRef, useState, type FormEvent } from "react";
import type { UseFormReturn } from "react-hook-form";
import type { SaleActionState } from "@/lib/actions/sales";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { NOT_CONFIRMED_MESSAGE } from "@/lib/errors/not-confirmed";
import { EMPTY_SALE, SALE_FIELDS, type SaleFormValues, type ValidSale } from "@/lib/validation/sale";
import { FORM_FIELDS_IN_ORDER, type FormField } from "./confirmation-ticks";
import { newSubmissionId } from "./submission-id";
import type { SaleEvidence } from "./use-sale-evidence";

/** The server action that submits the form (lib/actions/sales.ts). */
export type SaleAction = (previous: SaleActionState, formData: FormData) => Promise<SaleActionState>;

/** What the form tells its host of each recorded outcome; no personal data. */
export type OutcomeReport = (outcome: {
  submissionId: string;
  protocol: string;
  status: string;
  externalId: string | null;
}) => void;

export type SaleSubmission = ReturnType<typeof useSaleSubmission>;

/**
 * One sale's trip to the server: the submission id it goes under (kept for a resend, new after an accepted or
 * refused sale and for "Nova venda"), the server action's answer mapped onto the fields, the guard against a second press while it is
 * on its way, and what the answer means for the form (locked, open to a portal's prefill).
 */
export function useSaleSubmission({
  form,
  saleAction,
  initialSubmissionId,
  onOutcome,
  evidence,
}: {
  form: UseFormReturn<SaleFormValues, unknown, ValidSale>;
  saleAction: SaleAction;
  initialSubmissionId: string;
  onOutcome: OutcomeReport | undefined;
  /** The offer script's confirmations and the recording id (useSaleEvidence), checked and cleared with the sale. */
  evidence: SaleEvidence;
}) {
  const { setError, reset, clearErrors, setFocus, formState } = form;

  /** The first field with an error, in the form's order (not the order fields registered in), takes the focus. */
  const focusFirstError = (errors: Partial<Record<FormField, unknown>>) => {
    const first = FORM_FIELDS_IN_ORDER.find((field) => errors[field]);
    if (first === "confirmations" || first === "recordingId") evidence.focus(first);
    else if (first) setFocus(first);
    return Boolean(first);
  };
  const [submissionId, setSubmissionId] = useState(initialSubmissionId);
  const busy = useRef(false);
  /** Set when an answer arrives, taken by the focus that follows it (useOutcomeFocus). */
  const outcomeArrivedRef = useRef(false);
  const knownCustomerConfirmed = useRef(false);
  /**
   * The submission id whose last recorded outcome is `failed` (nothing sent), through any later answer that
   * recorded nothing (a limit, an outage, a known customer): another offer under it goes as a new sale.
   */
  const failedIdRef = useRef<string | null>(null);

  const [answer, dispatch, pending] = useActionState(
    async (previous: SaleActionState, payload: FormData): Promise<SaleActionState> => {
      // A dropped connection keeps the same submissionId, so sending again replays instead of duplicating.
      const next = await saleAction(previous, payload)
        .catch((): SaleActionState => ({
          ok: false,
          error: "not_confirmed",
          fieldErrors: {},
          message: NOT_CONFIRMED_MESSAGE,
        }))
        .finally(() => {
          busy.current = false;
        });
      outcomeArrivedRef.current = true;
      const fieldErrors = next.ok
        ? "fieldErrors" in next.data
          ? next.data.fieldErrors
          : {}
        : next.fieldErrors;
      for (const field of SALE_FIELDS) {
        if (fieldErrors[field]) setError(field, { type: "server", message: fieldErrors[field] });
      }
      if (!next.ok) evidence.showErrors(next.fieldErrors);
      // Sent, answer unknown: it may have gone out under that id, which must then never carry another offer.
      if (!next.ok && next.error === "not_confirmed") failedIdRef.current = null;
      if (next.ok && next.data.status !== "known_customer") {
        const sale = next.data;
        failedIdRef.current = sale.status === "failed" ? sale.submissionId : null;
        // A refused sale is fixed and sent as a new submission; a failed one (nothing sent) keeps its id. An
        // accepted one leaves the form empty for the next customer, its outcome shown above.
        if (sale.status === "rejected") setSubmissionId(newSubmissionId());
        if (sale.status === "accepted") {
          reset(EMPTY_SALE);
          evidence.reset();
          setSubmissionId(newSubmissionId());
        }
        // The id of the sale that was sent, not whatever the field holds by the time the answer arrives.
        onOutcome?.({
          submissionId: sale.submissionId,
          protocol: sale.protocol,
          status: sale.status,
          externalId: String(payload.get("externalId") ?? "").trim() || null,
        });
      }
      return next;
    },
    INITIAL_ACTION_STATE,
  );

  // The last answer until the agent dismisses it (an edit, "Nova venda"): plain state, not an action, so that
  // clearing it never marks the form busy (which would lock the field being typed in).
  const [dismissed, setDismissed] = useState<SaleActionState | null>(null);
  const state: SaleActionState = answer === dismissed ? INITIAL_ACTION_STATE : answer;
  const result = state.ok ? state.data : null;
  // Sent, answer unknown (or still on its way in another request): the same data may go again under the same
  // submissionId, never edited data, which the ledger would answer with the first sale's outcome.
  const notConfirmed = !state.ok && state.error === "not_confirmed";
  const sameSaleOnly = notConfirmed || result?.status === "pending";
  // An unknown sale must not go again, so its data stays as sent until the agent starts a new sale.
  const locked = pending || result?.status === "unknown" || sameSaleOnly;
  // A portal's prefill is for the next customer: it waits while a sale is on its way or must not be touched.
  // Nor while the agent corrects a refused or failed sale: only a form nobody has touched since it was (re)started.
  const openToPrefill =
    !pending && (answer === INITIAL_ACTION_STATE || result?.status === "accepted" || !formState.isDirty);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const formElement = event.currentTarget;
    // Only a press of "Enviar mesmo assim" confirms a known customer, never an Enter in a field.
    const confirmed = knownCustomerConfirmed.current;
    knownCustomerConfirmed.current = false;
    void form.handleSubmit(
      () => {
        // A second click or Enter while the first is on its way does nothing.
        if (busy.current) return;
        // The sale's fields are right; the customer's confirmations may still be missing.
        if (focusFirstError(evidence.check())) return;
        busy.current = true;
        const formData = new FormData(formElement);
        if (confirmed) formData.set("knownCustomer", "confirmed");
        // This computer's clock as the ticks leave: the server dates them by its own (lib/sales/evidence.ts).
        if (evidence.script) formData.set("confirmationsSentAt", new Date().toISOString());
        startTransition(() => dispatch(formData));
      },
      (errors) => focusFirstError({ ...errors, ...evidence.check() }),
    )(event);
  };

  // The outcome describes the data it was given: any edit makes it stale, so it goes, with the provider's marks
  // on the fields (the fix is sent as a new submission).
  const clearOutcome = (event?: { target: EventTarget | null }) => {
    // A failed sale (nothing sent) keeps its id while the agent fixes the customer's data; another plan, other
    // ticks or another recording id are another offer, so it goes as a new sale (its evidence is written once).
    // Never while a send is starting: the edit may land before the fieldset locks, and the id must stay the one
    // that goes out, which "Enviar de novo" may have to send again.
    const failed = !busy.current && failedIdRef.current === submissionId;
    const target = event?.target;
    const offer =
      target instanceof HTMLElement &&
      (["planId", "recordingId"].includes(target.getAttribute("name") ?? "") ||
        target.closest("[data-offer-script]") !== null);
    if (failed && offer) setSubmissionId(newSubmissionId());
    if (locked || (state.ok === false && !state.message)) return;
    for (const field of SALE_FIELDS) {
      if (formState.errors[field]?.type === "server") clearErrors(field);
    }
    setDismissed(answer);
  };

  /** "Nova venda": an empty form under a new submission id, the last answer gone. */
  const startNewSale = () => {
    reset(EMPTY_SALE);
    evidence.reset();
    setSubmissionId(newSubmissionId());
    setDismissed(answer);
  };

  return {
    submissionId,
    state,
    result,
    pending,
    sameSaleOnly,
    locked,
    openToPrefill,
    outcomeArrivedRef,
    focusFirstError,
    submit,
    clearOutcome,
    startNewSale,
    /** "Enviar mesmo assim": the next submit confirms the known customer. */
    confirmKnownCustomer: () => {
      knownCustomerConfirmed.current = true;
    },
  };
}
