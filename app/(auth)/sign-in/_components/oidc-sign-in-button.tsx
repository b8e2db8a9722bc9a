"use client";

import { useFormStatus } from "react-dom";
import { useSyncExternalStore } from "react";
import { oidcSignInAction } from "@/lib/actions/auth";
import { Button, buttonClass } from "@/components/ui/button";

const noSubscription = () => () => {};

/** Inside a partner portal's frame: the IdP's pages refuse to be framed, so its sign-in happens in a tab of its own. */
function useFramed(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => window.self !== window.top,
    () => false,
  );
}

function SubmitButton({ label, autoFocus }: { label: string; autoFocus: boolean }) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" disabled={pending} autoFocus={autoFocus} variant="brand-outline" block>
      {pending ? "Abrindo o login da empresa…" : label}
    </Button>
  );
}

export function OidcSignInButton({
  name,
  callbackUrl,
  autoFocus,
}: {
  name: string;
  callbackUrl: string;
  autoFocus: boolean;
}) {
  const label = `Entrar com ${name}`;
  if (useFramed()) {
    return (
      <a
        href="/sign-in"
        target="_blank"
        rel="noopener"
        className={buttonClass({ variant: "brand-outline", block: true })}
      >
        {label} (abre em uma nova aba)
      </a>
    );
  }
  return (
    <form action={oidcSignInAction}>
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <SubmitButton label={label} autoFocus={autoFocus} />
    </form>
  );
}
