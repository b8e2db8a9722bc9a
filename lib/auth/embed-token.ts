import "server-only";
import { errors, jwtVerify } from "jose";
import { lt, sql } from "drizzle-orm";
import type { Database } from "@/lib/db/connection";
import { normalizeEmail } from "@/lib/db/queries/agents";
import { agents, embedTokenUses, type Agent } from "@/lib/db/schema";
import { SALE_FIELDS, type SaleFormValues } from "@/lib/validation/sale";

export const MAX_TOKEN_LIFETIME_SECONDS = 5 * 60;
const CLOCK_TOLERANCE_SECONDS = 60;

export type EmbedTokenProblem = "invalid" | "expired" | "replayed" | "disabled";

export type EmbedSignIn =
  { ok: true; agent: Agent; prefill: Partial<SaleFormValues> } | { ok: false; problem: EmbedTokenProblem };

/** Only the form's own fields, only strings: anything else a portal sends is dropped. */
export function prefillFrom(claim: unknown): Partial<SaleFormValues> {
  if (!claim || typeof claim !== "object") return {};
  const fields = claim as Record<string, unknown>;
  return Object.fromEntries(
    SALE_FIELDS.filter((field) => typeof fields[field] === "string").map((field) => [
      field,
      fields[field] as string,
    ]),
  );
}

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
    !sub.trim() ||
    !name.trim()
  ) {
    return { ok: false, problem: "invalid" };
  }

  await db.delete(embedTokenUses).where(lt(embedTokenUses.expiresAt, sql`now()`));
  const [fresh] = await db
    .insert(embedTokenUses)
    .values({ jti, expiresAt: new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000) })
    .onConflictDoNothing()
    .returning();
  if (!fresh) return { ok: false, problem: "replayed" };

  const agent = await findOrLinkAgent(db, { sub, email: normalizeEmail(email), name: name.trim() });
  if (!agent) return { ok: false, problem: "invalid" };
  if (agent.disabledAt) return { ok: false, problem: "disabled" };
  return { ok: true, agent, prefill: prefillFrom(payload.prefill) };
}

/** Undefined when the e-mail already belongs to an agent linked to another partner id. */
async function findOrLinkAgent(
  db: Database,
  who: { sub: string; email: string; name: string },
): Promise<Agent | undefined> {
  const [linked] = await db
    .update(agents)
    .set({ externalSubject: who.sub, updatedAt: sql`now()` })
    .where(
      sql`${agents.externalSubject} = ${who.sub} or (${agents.email} = ${who.email} and ${agents.externalSubject} is null)`,
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
      sessionsValidFrom: new Date(),
    })
    .onConflictDoNothing()
    .returning();
  return created;
}
