import "server-only";
import { errors, jwtVerify } from "jose";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/connection";
import { normalizeEmail } from "@/lib/db/queries/agents";
import { agents, embedTokenUses, type Agent } from "@/lib/db/schema";
import { pickSaleFields, type SaleFormValues } from "@/lib/validation/sale";
import { textProblem } from "@/lib/validation/text";

export const MAX_TOKEN_LIFETIME_SECONDS = 5 * 60;
const CLOCK_TOLERANCE_SECONDS = 60;

export type EmbedTokenProblem = "invalid" | "expired" | "replayed" | "disabled";

export type EmbedSignIn =
  { ok: true; agent: Agent; prefill: Partial<SaleFormValues> } | { ok: false; problem: EmbedTokenProblem };

/**
 * A partner portal's backend signs who the agent is (HS256, EMBED_SSO_SECRET); the token is good for one sign-in
 * within 5 minutes. The agent is found by the partner's `sub`, linked by e-mail the first time, or created.
 */
export async function signInWithEmbedToken(
  db: Database,
  token: string,
  secret: string,
  now: Date = new Date(),
): Promise<EmbedSignIn> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ["HS256"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
      requiredClaims: ["sub", "iat", "exp", "jti"],
    }));
  } catch (error) {
    return { ok: false, problem: error instanceof errors.JWTExpired ? "expired" : "invalid" };
  }
  const { sub, iat, exp, jti, email, name } = payload as Record<string, unknown>;
  if (
    typeof sub !== "string" ||
    typeof jti !== "string" ||
    typeof email !== "string" ||
    typeof name !== "string" ||
    typeof iat !== "number" ||
    typeof exp !== "number" ||
    exp - iat > MAX_TOKEN_LIFETIME_SECONDS ||
    // A token "issued" in the future would stretch the 5-minute rule as far as its clock is wrong.
    iat > Math.floor(now.getTime() / 1000) + CLOCK_TOLERANCE_SECONDS ||
    !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ||
    !sub.trim() ||
    !name.trim() ||
    // Claims become database values: a NUL or a megabyte in a signed token is still refused here.
    [sub, jti, email, name].some((claim) => textProblem(claim, { maxLength: 255 }) !== null)
  ) {
    return { ok: false, problem: "invalid" };
  }

  await db.delete(embedTokenUses).where(lt(embedTokenUses.expiresAt, now));
  const [fresh] = await db
    .insert(embedTokenUses)
    .values({ jti, expiresAt: new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000) })
    .onConflictDoNothing()
    .returning();
  if (!fresh) return { ok: false, problem: "replayed" };

  const agent = await findOrLinkAgent(db, { sub, email: normalizeEmail(email), name: name.trim() });
  if (!agent) return { ok: false, problem: "invalid" };
  if (agent.disabledAt) return { ok: false, problem: "disabled" };
  return { ok: true, agent, prefill: pickSaleFields(payload.prefill) };
}

/**
 * By the partner's id first; else an unlinked agent-role account without a password, with the same e-mail,
 * is linked (a supervisor's or a password account is never taken over); else a new agent. Undefined when
 * the e-mail belongs to an account that may not be linked.
 */
async function findOrLinkAgent(
  db: Database,
  who: { sub: string; email: string; name: string },
): Promise<Agent | undefined> {
  const bySubject = async () =>
    (await db.select().from(agents).where(eq(agents.externalSubject, who.sub)).limit(1))[0];
  const known = await bySubject();
  if (known) return known;
  const [linked] = await db
    .update(agents)
    .set({ externalSubject: who.sub, updatedAt: sql`now()` })
    .where(
      and(
        eq(agents.email, who.email),
        isNull(agents.externalSubject),
        isNull(agents.passwordHash),
        eq(agents.role, "agent"),
      ),
    )
    .returning();
  if (linked) return linked;
  const [created] = await db
    .insert(agents)
    .values({
      email: who.email,
      name: who.name,
      role: "agent",
      passwordHash: null,
      externalSubject: who.sub,
    })
    .onConflictDoNothing()
    .returning();
  // Two first sign-ins of the same agent at once: the other one created the row.
  return created ?? (await bySubject());
}
