"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/action-state";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { FormField, inputClassName } from "@/components/ui/form-field";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { CurrentPasswordField } from "./current-password-field";

export type NewPasswordField = "current" | "password" | "confirmation";
type NewPasswordAction = (
  previous: ActionState<NewPasswordField>,
  formData: FormData,
) => Promise<ActionState<NewPasswordField>>;

const HINT =
  "De 8 a 256 caracteres, qualquer caractere vale. Uma frase longa é fácil de lembrar; senhas comuns, vazadas ou com o seu nome ou e-mail são recusadas.";

/** A new password, typed twice; with the current one first on the account page. */
export function NewPasswordForm({
  action,
  askCurrent,
  submitLabel,
  email,
}: {
  action: NewPasswordAction;
  askCurrent: boolean;
  submitLabel: string;
  /** For the browser's password manager, which files the new password under this account. */
  email: string;
}) {
  const [state, formAction, pending] = useActionState(action, INITIAL_ACTION_STATE);
  const errors = state.ok ? {} : state.fieldErrors;
  return (
    <form action={formAction} noValidate className="space-y-4">
      <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      {state.message ? (
        <Notice tone={state.ok ? "success" : "error"} compact className="text-sm">
          {state.message}
        </Notice>
      ) : null}
      {askCurrent ? <CurrentPasswordField id="current-password" error={errors.current} /> : null}
      <FormField id="new-password" label="Nova senha" hint={HINT} error={errors.password}>
        {(control) => (
          <input
            {...control}
            name="password"
            type="password"
            autoComplete="new-password"
            maxLength={256}
            autoFocus={!askCurrent}
            required
            className={inputClassName}
          />
        )}
      </FormField>
      <FormField id="password-confirmation" label="Repita a nova senha" error={errors.confirmation}>
        {(control) => (
          <input
            {...control}
            name="confirmation"
            type="password"
            autoComplete="new-password"
            maxLength={256}
            required
            className={inputClassName}
          />
        )}
      </FormField>
      <Button type="submit" disabled={pending} block>
        {pending ? "Salvando…" : submitLabel}
      </Button>
    </form>
  );
}
