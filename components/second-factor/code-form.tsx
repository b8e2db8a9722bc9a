"use client";

import { useActionState } from "react";
import type { ActionState } from "@/lib/action-state";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { FormField, inputClassName } from "@/components/ui/form-field";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";

type CodeAction = (previous: ActionState<"code">, formData: FormData) => Promise<ActionState<"code">>;

/** One code to type (the authenticator app's six digits, or a recovery code) and its button. */
export function CodeForm({
  action,
  kind,
  autoFocus = false,
}: {
  action: CodeAction;
  kind: "totp" | "recovery_code";
  autoFocus?: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, INITIAL_ACTION_STATE);
  const error = state.ok ? undefined : state.fieldErrors.code;
  const totp = kind === "totp";
  const id = totp ? "totp-code" : "recovery-code";
  return (
    <form action={formAction} noValidate className="space-y-3">
      {state.message ? (
        <Notice tone="error" compact className="text-sm">
          {state.message}
        </Notice>
      ) : null}
      <FormField
        id={id}
        label={totp ? "Código do aplicativo" : "Código de recuperação"}
        hint={
          totp
            ? "Os 6 números que o aplicativo autenticador mostra agora."
            : "Um dos 10 códigos que você guardou. Cada um serve uma vez."
        }
        error={error}
      >
        {(control) => (
          <input
            {...control}
            key={state === INITIAL_ACTION_STATE ? "first" : "again"}
            name="code"
            type="text"
            inputMode={totp ? "numeric" : "text"}
            autoComplete={totp ? "one-time-code" : "off"}
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={totp ? 7 : 11}
            autoFocus={autoFocus || Boolean(error)}
            required
            className={inputClassName}
          />
        )}
      </FormField>
      <Button type="submit" disabled={pending} block>
        {pending ? "Verificando…" : "Verificar"}
      </Button>
    </form>
  );
}
