"use client";

import { useRef, useState, type ReactNode } from "react";
import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import type { ActionState } from "@/lib/action-state";
import { FormField, inputClassName } from "@/components/ui/form-field";
import { Notice } from "@/components/ui/notice";
import { CurrentPasswordField } from "./current-password-field";
import { RecoveryCodes } from "./recovery-codes";
import { SecurityKeyButton } from "./security-key-button";

type Enrolled = ActionState<"code" | "current", { recoveryCodes: string[] }>;

/**
 * A new security key or passkey: a name for it, then the browser's own dialog (Windows Hello, the USB key). Done, it
 * shows the recovery codes when the enrolment made them, and `after`.
 */
export function KeyEnrolment({
  options,
  submit,
  askCurrent,
  after,
}: {
  options: () => Promise<PublicKeyCredentialCreationOptionsJSON>;
  submit: (responseJson: string, label: string, current: string) => Promise<Enrolled>;
  askCurrent: boolean;
  after: ReactNode;
}) {
  const [codes, setCodes] = useState<string[] | null>(null);
  const label = useRef<HTMLInputElement>(null);
  const current = useRef<HTMLInputElement>(null);
  if (codes) {
    return codes.length > 0 ? (
      <RecoveryCodes codes={codes}>{after}</RecoveryCodes>
    ) : (
      <div className="space-y-3">
        <Notice tone="success" compact className="text-sm">
          Chave de segurança cadastrada.
        </Notice>
        {after}
      </div>
    );
  }
  return (
    <div className="space-y-3">
      <FormField
        id="key-label"
        label="Nome da chave"
        hint="Para reconhecê-la depois, como “Windows Hello da mesa 12” ou “Chave USB azul”."
      >
        {(control) => (
          <input
            {...control}
            ref={label}
            type="text"
            maxLength={60}
            defaultValue=""
            className={inputClassName}
          />
        )}
      </FormField>
      {askCurrent ? (
        <CurrentPasswordField id="key-current-password" inputRef={current} named={false} />
      ) : null}
      <SecurityKeyButton
        mode="enrol"
        label="Cadastrar chave de segurança"
        variant="primary"
        options={options}
        submit={(response) => submit(response, label.current?.value ?? "", current.current?.value ?? "")}
        onEnrolled={setCodes}
      />
    </div>
  );
}
