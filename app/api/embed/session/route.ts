import { decodeJwt } from "jose";
import { CredentialsSignin } from "next-auth";
import { signIn } from "@/auth";
import { prefillFrom } from "@/lib/auth/embed-token";
import { isCrossSite } from "@/lib/http/same-origin";

export const dynamic = "force-dynamic";

function answer(status: number, body: Record<string, unknown>) {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}

/**
 * Starts the agent's session from a partner portal's signed token (checked by the "embed-token" provider in
 * auth.ts). Called by /embed with fetch rather than a server action, so the token leaves the address at once.
 */
export async function POST(request: Request) {
  if (isCrossSite(request)) return answer(403, { ok: false, problem: "cross-site" });
  const body = (await request.json().catch(() => null)) as { token?: unknown } | null;
  const token = typeof body?.token === "string" ? body.token : "";
  if (!token) return answer(400, { ok: false, problem: "invalid" });
  try {
    await signIn("embed-token", { token, redirect: false });
  } catch (error) {
    if (error instanceof CredentialsSignin && error.code.startsWith("embed:")) {
      return answer(401, { ok: false, problem: error.code.slice("embed:".length) });
    }
    return answer(503, { ok: false, problem: "unavailable" });
  }
  // Verified by the sign-in above; only the prefill claim is read here.
  return answer(200, { ok: true, prefill: prefillFrom(decodeJwt(token).prefill) });
}
