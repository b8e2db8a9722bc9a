import { decodeJwt } from "jose";
import { CredentialsSignin } from "next-auth";
import { signIn } from "@/auth";
import { noStoreJson } from "@/lib/http/json";
import { isCrossSite } from "@/lib/http/same-origin";
import { pickSaleFields } from "@/lib/validation/sale";

export const dynamic = "force-dynamic";

/**
 * Starts the agent's session from a partner portal's signed token (checked by the "embed-token" provider in
 * auth.ts). Called by /embed with fetch rather than a server action, so the token leaves the address at once.
 */
export async function POST(request: Request) {
  if (isCrossSite(request)) return noStoreJson(403, { ok: false, problem: "cross-site" });
  const body = (await request.json().catch(() => null)) as { token?: unknown } | null;
  const token = typeof body?.token === "string" ? body.token : "";
  if (!token) return noStoreJson(400, { ok: false, problem: "invalid" });
  try {
    await signIn("embed-token", { token, redirect: false });
  } catch (error) {
    if (error instanceof CredentialsSignin && error.code.startsWith("embed:")) {
      return noStoreJson(401, { ok: false, problem: error.code.slice("embed:".length) });
    }
    return noStoreJson(503, { ok: false, problem: "unavailable" });
  }
  // Verified by the sign-in above; only the prefill claim is read here.
  return noStoreJson(200, { ok: true, prefill: pickSaleFields(decodeJwt(token).prefill) });
}
