import type { Ref } from "react";
import { FormField, inputClassName } from "@/components/ui/form-field";

/** The current password, asked again before a change to the account's password or factors. */
export function CurrentPasswordField({
  id,
  label = "Senha atual",
  error,
  autoFocus = false,
  inputRef,
  named = true,
}: {
  id: string;
  label?: string;
  error?: string | undefined;
  autoFocus?: boolean;
  inputRef?: Ref<HTMLInputElement>;
  /** Sent with its form as `current`; unnamed when a script reads it (a key's enrolment). */
  named?: boolean;
}) {
  return (
    <FormField id={id} label={label} error={error}>
      {(control) => (
        <input
          {...control}
          ref={inputRef}
          name={named ? "current" : undefined}
          type="password"
          autoComplete="current-password"
          maxLength={256}
          autoFocus={autoFocus}
          required
          className={inputClassName}
        />
      )}
    </FormField>
  );
}
