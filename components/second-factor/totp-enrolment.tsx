"use client";

import { useActionState, type ReactNode } from "react";
import type { ActionState } from "@/lib/action-state";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { FormField, inputClassName } from "@/components/ui/form-field";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { CurrentPasswordField } from "./current-password-field";
import { QrCode } from "./qr-code";
import { RecoveryCodes } from "./recovery-codes";

type EnrolAction = (
  previous: ActionState<"code" | "current", { recoveryCodes: string[] }>,
  formData: FormData,
) => Promise<ActionState<"code" | "current", { recoveryCodes: string[] }>>;

/**
 * The authenticator app's enrolment: the QR code (or the key as text, for an app on the PC), then its current code.
 * Done, it shows the recovery codes when the enrolment made them, and `after`.
 */
export function TotpEnrolment({
  qr,
  secret,
  action,
  askCurrent,
  after,
}: {
  qr: { size: number; path: string };
  secret: string;
  action: EnrolAction;
  askCurrent: boolean;
  after: ReactNode;
}) {
  const [state, formAction, pending] = useActionState(action, INITIAL_ACTION_STATE);
  if (state.ok) {
    return state.data.recoveryCodes.length > 0 ? (
      <RecoveryCodes codes={state.data.recoveryCodes}>{after}</RecoveryCodes>
    ) : (
      <div className="space-y-3">
        <Notice tone="success" compact className="text-sm">
          Aplicativo autenticador cadastrado.
        </Notice>
        {after}
      </div>
    );
  }
  const errors = state.fieldErrors;
  const grouped = secret.match(/.{1,4}/g)!.join(" ");
  return (
    <div className="space-y-4">
      <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
        <li>
          Abra o aplicativo autenticador (Google Authenticator, Microsoft Authenticator, 1Password,
          KeePassXC…).
        </li>
        <li>Leia o código QR, ou digite a chave abaixo.</li>
        <li>Digite o código de 6 números que o aplicativo mostrar.</li>
      </ol>
      <div className="flex flex-wrap items-center gap-4">
        <QrCode {...qr} label="Código QR para o aplicativo autenticador" />
        <p className="text-sm text-slate-700">
          Chave para digitar:
          <code className="mt-1 block font-mono text-sm break-all text-slate-900" data-testid="totp-secret">
            {grouped}
          </code>
        </p>
      </div>
      <form action={formAction} noValidate className="space-y-3">
        {state.message ? (
          <Notice tone="error" compact className="text-sm">
            {state.message}
          </Notice>
        ) : null}
        <FormField id="enrol-code" label="Código do aplicativo" error={errors.code}>
          {(control) => (
            <input
              {...control}
              name="code"
              type="text"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={7}
              required
              className={inputClassName}
            />
          )}
        </FormField>
        {askCurrent ? <CurrentPasswordField id="enrol-current-password" error={errors.current} /> : null}
        <Button type="submit" disabled={pending} block>
          {pending ? "Verificando…" : "Confirmar"}
        </Button>
      </form>
    </div>
  );
}
