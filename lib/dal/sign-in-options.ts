import "server-only";
import { idpLogoutUrl } from "@/lib/auth/oidc-logout";
import { getConfig } from "@/lib/env";

/** What the sign-in page offers: a small DTO, so nothing of the OIDC configuration but its label reaches a page. */
export interface SignInOptions {
  password: boolean;
  oidc: { name: string } | null;
}

export function signInOptions(): SignInOptions {
  const { oidc, passwordSignIn } = getConfig();
  return { password: passwordSignIn, oidc: oidc ? { name: oidc.name } : null };
}

/** Where an agent who signed in through the IdP may end their IdP session too; null when it offers none. */
export async function idpSignOutUrl(): Promise<string | null> {
  const { oidc, publicUrl } = getConfig();
  return oidc ? idpLogoutUrl(oidc, publicUrl) : null;
}
