"use client";

import { useEffect, useRef, type RefObject } from "react";
import type { UseFormSetFocus } from "react-hook-form";
import type { SaleActionState } from "@/lib/actions/sales";
import type { SaleField, SaleFormValues } from "@/lib/validation/sale";

export interface OutcomeTargets {
  panelHeadingRef: RefObject<HTMLHeadingElement | null>;
  messageRef: RefObject<HTMLParagraphElement | null>;
  submitButtonRef: RefObject<HTMLButtonElement | null>;
  newSaleButtonRef: RefObject<HTMLButtonElement | null>;
}

/**
 * Where the agent's next key belongs after each answer, with the outcome in view: the next customer's CPF after
 * an accepted sale, the field the provider refused, "Enviar de novo" when nothing was sent, "Nova venda" after an
 * unknown one; otherwise the outcome's heading. Returns what "Nova venda" calls: CPF once the outcome is gone.
 */
export function useOutcomeFocus({
  state,
  result,
  pending,
  arrivedRef,
  panelHeadingRef,
  messageRef,
  submitButtonRef,
  newSaleButtonRef,
  focusFirstError,
  setFocus,
}: OutcomeTargets & {
  state: SaleActionState;
  result: unknown;
  pending: boolean;
  /** Set by the submission when an answer arrives; taken here. */
  arrivedRef: RefObject<boolean>;
  focusFirstError: (errors: Partial<Record<SaleField, unknown>>) => boolean;
  setFocus: UseFormSetFocus<SaleFormValues>;
}): () => void {
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
        setFocus("customerDocument");
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
    // focusFirstError, setFocus and the refs are stable for the form's life.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state, pending]);

  // CPF takes the focus once the outcome is gone: only then is the fieldset (disabled while a sale is finished)
  // enabled again, which a transition may commit frames later; a focus asked for sooner is lost.
  const focusCpfWhenCleared = useRef(false);
  useEffect(() => {
    if (result || !focusCpfWhenCleared.current) return;
    focusCpfWhenCleared.current = false;
    setFocus("customerDocument");
  }, [result, setFocus]);

  return () => {
    focusCpfWhenCleared.current = true;
  };
}
