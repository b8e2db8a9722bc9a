"use client";

import { useFormStatus } from "react-dom";
import { useSyncExternalStore } from "react";
import { oidcSignInAction } from "@/lib/actions/auth";

const BUTTON_CLASS =
  "block w-full rounded-md border border-brand-700 bg-white px-4 py-2 text-center font-medium text-brand-800 hover:bg-brand-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-600 focus-visible:ring-offset-2 disabled:opacity-70";

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
    <button type="submit" disabled={pending} autoFocus={autoFocus} className={BUTTON_CLASS}>
      {pending ? "Abrindo o login da empresa…" : label}
    </button>
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
      <a href="/sign-in" target="_blank" rel="noopener" className={BUTTON_CLASS}>
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
