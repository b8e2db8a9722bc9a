"use client";

import type { ChangeEvent, KeyboardEvent } from "react";
import type { UseFormRegisterReturn } from "react-hook-form";
import { caretAfterDigits, type Mask } from "@/lib/masks";

const countDigits = (text: string) => text.replace(/\D/g, "").length;

/**
 * Masks an uncontrolled input in its own input event, before react-hook-form reads it: nothing re-renders
 * per keystroke, so keys typed with no delay are never lost, and paste, autofill and edits in the middle
 * keep the caret after the same digit.
 */
export function useMaskedInput(registration: UseFormRegisterReturn, mask: Mask) {
  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.target;
    const caret = input.selectionStart ?? input.value.length;
    const digitsBeforeCaret = countDigits(input.value.slice(0, caret));
    const formatted = mask(input.value);
    if (formatted !== input.value) {
      input.value = formatted;
      if (document.activeElement === input) {
        const position = caretAfterDigits(formatted, digitsBeforeCaret);
        input.setSelectionRange(position, position);
      }
    }
    return registration.onChange(event);
  };

  // Backspace just after a literal ("529.|") or Delete just before one deletes the digit beyond it.
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const start = input.selectionStart;
    if (start === null || start !== input.selectionEnd) return;
    // Text the mask kept as it was (no digit: "ontem") has no literals to step over.
    if (countDigits(input.value) === 0) return;
    let position = start;
    if (event.key === "Backspace") {
      while (position > 0 && /\D/.test(input.value.charAt(position - 1))) position--;
    } else if (event.key === "Delete") {
      while (position < input.value.length && /\D/.test(input.value.charAt(position))) position++;
    }
    if (position !== start) input.setSelectionRange(position, position);
  };

  return { ...registration, onChange, onKeyDown, inputMode: "numeric" as const };
}
