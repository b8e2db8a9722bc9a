"use client";

import { useState } from "react";
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from "@simplewebauthn/browser";
import type { ActionState } from "@/lib/action-state";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import { FACTOR_MESSAGES } from "@/lib/errors/second-factor";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";

type Outcome = ActionState<string, { recoveryCodes: string[] }> | ActionState<"code">;

/**
 * A security key or passkey: the browser asks it to sign (`mode="verify"`) or to make a new credential
 * (`mode="enrol"`) for this site, and the server checks the answer. Errors are said in place.
 */
export function SecurityKeyButton({
  mode,
  label,
  options,
  submit,
  onEnrolled,
  extra,
  variant = "secondary",
}: {
  mode: "verify" | "enrol";
  label: string;
  options: () => Promise<
    PublicKeyCredentialRequestOptionsJSON | PublicKeyCredentialCreationOptionsJSON | null
  >;
  submit: (responseJson: string, extra?: string) => Promise<Outcome>;
  onEnrolled?: (recoveryCodes: string[]) => void;
  /** Read when pressed: what else the server needs (the current password on the account page). */
  extra?: () => string;
  variant?: "primary" | "secondary";
}) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function run() {
    setError(null);
    if (!browserSupportsWebAuthn()) return setError(FACTOR_MESSAGES.keyUnsupported);
    setPending(true);
    try {
      const optionsJSON = await options();
      if (!optionsJSON) return setError(FACTOR_MESSAGES.keyInvalid);
      let response: unknown;
      try {
        response =
          mode === "verify"
            ? await startAuthentication({ optionsJSON: optionsJSON as PublicKeyCredentialRequestOptionsJSON })
            : await startRegistration({ optionsJSON: optionsJSON as PublicKeyCredentialCreationOptionsJSON });
      } catch {
        return setError(FACTOR_MESSAGES.keyCancelled);
      }
      const outcome = await submit(JSON.stringify(response), extra?.());
      if (!outcome.ok)
        return setError(
          outcome.message ?? Object.values(outcome.fieldErrors)[0] ?? FACTOR_MESSAGES.keyInvalid,
        );
      if (onEnrolled && outcome.data && "recoveryCodes" in outcome.data)
        onEnrolled(outcome.data.recoveryCodes);
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="space-y-2">
      {error ? (
        <Notice tone="error" compact className="text-sm">
          {error}
        </Notice>
      ) : null}
      <Button variant={variant} block disabled={pending} onClick={run}>
        {pending ? "Aguardando a chave…" : label}
      </Button>
    </div>
  );
}
