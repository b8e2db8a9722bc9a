"use client";

import { useActionState, useEffect, useRef } from "react";
import { signInAction } from "@/lib/actions/auth";
import { FormField, inputClassName } from "@/components/ui/form-field";
import { SignInAlert } from "./sign-in-alert";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { Button } from "@/components/ui/button";

/** `notice`: why the last sign-in did not happen (the IdP's, from `?error=`), until this form answers itself. */
export function SignInForm({ callbackUrl, notice }: { callbackUrl: string; notice: string | null }) {
  const [state, formAction, pending] = useActionState(signInAction, INITIAL_ACTION_STATE);
  const message = state === INITIAL_ACTION_STATE ? notice : state.message;
  const fieldErrors = state.ok ? {} : state.fieldErrors;
  const typedEmail = state.ok ? "" : (state.values?.email ?? "");
  const passwordRef = useRef<HTMLInputElement>(null);

  // After a refused attempt the e-mail stays and the password is asked again.
  useEffect(() => {
    if (state.message && typedEmail) passwordRef.current?.focus();
  }, [state, typedEmail]);

  return (
    <form action={formAction} noValidate className="space-y-4">
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      {message ? <SignInAlert>{message}</SignInAlert> : null}
      <FormField id="email" label="E-mail" error={fieldErrors.email}>
        {(control) => (
          <input
            {...control}
            name="email"
            type="email"
            defaultValue={typedEmail}
            autoComplete="username"
            maxLength={254}
            autoFocus
            required
            className={inputClassName}
          />
        )}
      </FormField>
      <FormField id="password" label="Senha" error={fieldErrors.password}>
        {(control) => (
          <input
            {...control}
            name="password"
            type="password"
            autoComplete="current-password"
            maxLength={256}
            ref={passwordRef}
            required
            className={inputClassName}
          />
        )}
      </FormField>
      <Button type="submit" disabled={pending} block>
        {pending ? "Entrando…" : "Entrar"}
      </Button>
    </form>
  );
}
