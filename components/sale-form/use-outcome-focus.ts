"use client";

import { useEffect, useRef } from "react";
import type { UseFormSetFocus } from "react-hook-form";
import type { SaleFormValues } from "@/lib/validation/sale";
import { FORM_FIELDS_IN_ORDER } from "./confirmation-ticks";
import type { SaleSubmission } from "./use-sale-submission";

/**
 * Where the agent's next key belongs after each answer, with the outcome in view: the form's first field (the
 * plan) for the next customer after an accepted sale, the field the provider refused, "Enviar de novo" when
 * nothing was sent, "Nova venda" after an unknown one; otherwise the outcome's heading. The form puts the refs on
 * those elements; `focusFirstFieldWhenCleared` is for "Nova venda": the first field once the outcome is gone.
 */
export function useOutcomeFocus(
  { state, result, pending, outcomeArrivedRef: arrivedRef, focusFirstError }: SaleSubmission,
  setFocus: UseFormSetFocus<SaleFormValues>,
) {
  const panelHeadingRef = useRef<HTMLHeadingElement>(null);
  const messageRef = useRef<HTMLParagraphElement>(null);
  const submitButtonRef = useRef<HTMLButtonElement>(null);
  const newSaleButtonRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (pending || !arrivedRef.current) return;
    arrivedRef.current = false;
    if (!state.ok) {
      if (focusFirstError(state.fieldErrors)) return;
      (state.error === "not_confirmed" ? submitButtonRef.current : messageRef.current)?.focus();
      return;
    }
    panelHeadingRef.current?.parentElement?.scrollIntoView({ block: "nearest" });
    const outcome = state.data;
    switch (outcome.status) {
      case "accepted":
        setFocus(FORM_FIELDS_IN_ORDER[0]);
        return;
      case "rejected":
        if (!focusFirstError(outcome.fieldErrors)) panelHeadingRef.current?.focus();
        return;
      case "failed":
        (outcome.canRetry ? submitButtonRef.current : panelHeadingRef.current)?.focus();
        return;
      case "unknown":
        newSaleButtonRef.current?.focus();
        return;
      default:
        panelHeadingRef.current?.focus();
    }
    // Runs for a new answer only: the refs are stable, and focusFirstError and setFocus, though made anew each
    // render, only ever focus a field.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state, pending]);

  // The first field (the plan) takes the focus once the outcome is gone: only then is the fieldset (disabled
  // while a sale is finished) enabled again, which a transition may commit frames later; a focus asked for sooner
  // is lost.
  const focusFirstFieldWhenCleared = useRef(false);
  useEffect(() => {
    if (result || !focusFirstFieldWhenCleared.current) return;
    focusFirstFieldWhenCleared.current = false;
    setFocus(FORM_FIELDS_IN_ORDER[0]);
  }, [result, setFocus]);

  return {
    panelHeadingRef,
    messageRef,
    submitButtonRef,
    newSaleButtonRef,
    focusFirstFieldWhenCleared: () => {
      focusFirstFieldWhenCleared.current = true;
    },
  };
}
