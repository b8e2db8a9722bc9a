"use client";

import { useActionState, useState, type ReactNode } from "react";
import type { ActionState } from "@/lib/action-state";
import { INITIAL_ACTION_STATE } from "@/lib/action-state";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { CurrentPasswordField } from "./current-password-field";
import { RecoveryCodes } from "./recovery-codes";

type Confirmed = ActionState<"current", { recoveryCodes: string[] }>;

/**
 * A change that asks for the current password first (remove a factor, new recovery codes): a button that opens the
 * password field, then the action. New recovery codes are shown where the form was.
 */
export function PasswordConfirmForm({
  id,
  action,
  open: openLabel,
  submit,
  hidden,
  children,
}: {
  id: string;
  action: (previous: Confirmed, formData: FormData) => Promise<Confirmed>;
  open: string;
  submit: string;
  hidden?: Record<string, string>;
  children?: ReactNode;
}) {
  const [state, formAction, pending] = useActionState(action, INITIAL_ACTION_STATE);
  const [open, setOpen] = useState(false);
  if (state.ok && state.data.recoveryCodes.length > 0)
    return <RecoveryCodes codes={state.data.recoveryCodes} />;
  if (!open) {
    return (
      <Button variant="secondary" size="sm" onClick={() => setOpen(true)}>
        {openLabel}
      </Button>
    );
  }
  const error = state.ok ? undefined : state.fieldErrors.current;
  return (
    <form action={formAction} noValidate className="space-y-2">
      {children}
      {state.message ? (
        <Notice tone="error" compact className="text-sm">
          {state.message}
        </Notice>
      ) : null}
      {Object.entries(hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <CurrentPasswordField
        id={`${id}-current`}
        label="Confirme com a sua senha atual"
        error={error}
        autoFocus
      />
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={pending}>
          {pending ? "Confirmando…" : submit}
        </Button>
        <Button variant="secondary" size="sm" onClick={() => setOpen(false)}>
          Cancelar
        </Button>
      </div>
    </form>
  );
}
