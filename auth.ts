import NextAuth, { CredentialsSignin, type DefaultSession } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { doorName, type Door } from "@/lib/auth/doors";
import { admittedUser } from "@/lib/auth/admission";
import { passwordCredential } from "@/lib/auth/credential";
import { signInWithPortalToken, type PortalSignIn, type PortalTokenProblem } from "@/lib/auth/portal-token";
import { noteAuthError } from "@/lib/auth/oidc-attempt";
import { oidcProviders } from "@/lib/auth/oidc-provider";
import { OIDC_PROVIDER_ID } from "@/lib/config/oidc";
import { hasClaim } from "@/lib/auth/oidc-claims";
import { signInWithOidc } from "@/lib/auth/oidc-sign-in";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { authCookies } from "@/lib/auth/session-cookie";
import { authenticateAgent, completeSignIn, type SignInResult } from "@/lib/auth/sign-in";
import { passwordSignInSteps, completeSignInSteps } from "@/lib/auth/second-factor/sign-in";
import { signInErrorPath } from "@/lib/errors/sign-in";
import { identityEvents, liveSessionAgent, startSession } from "@/lib/dal/session";
import { getDb } from "@/lib/db";
import type { Agent, AgentRole } from "@/lib/db/schema";
import { SESSION_MAX_AGE_MS } from "@/lib/config/parse";
import { getConfig } from "@/lib/env";
import { clientAddress } from "@/lib/http/forwarded";
import { log } from "@/lib/log";
import { countSignInRefusal } from "@/lib/metrics";
import { securityEvent, securityEventOnce } from "@/lib/security-log";
import { parseSignInCredentials } from "@/lib/validation/sign-in";

declare module "next-auth" {
  interface User {
    /** The role the door gave at this sign-in: the session's. */
    role: AgentRole;
    /** How they came in, and with which identity (none for a password): what the session row keeps. */
    door?: Door;
    identityId?: string | null;
    /** A password sign-in's credential (what the session check holds the password against). */
    credential?: string | null;
    /** What the sign-in did to the account, for the security log and the trail (created, linked, a new role). */
    accountChange?: { outcome: string; previousRole: AgentRole | null };
  }
  interface Session {
    user: { id: string; role: AgentRole } & DefaultSession["user"];
  }
}

declare module "@auth/core/jwt" {
  interface JWT {
    role?: AgentRole;
    /** The session row (lib/db/queries/sessions.ts): the cookie is only as good as that row. */
    sid?: string;
  }
}

/**
 * The account is locked for a while: the sign-in action reads the wait from the error itself (Auth.js throws it as
 * it is to a server-side signIn), so the page can say how long. The code is all a direct POST's redirect carries.
 */
export class AccountLockedError extends CredentialsSignin {
  override code = "locked";
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super();
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Too many password checks under way: the sign-in page asks to try again in a few seconds. */
export class SignInBusyError extends CredentialsSignin {
  override code = "busy";
}

/**
 * The password was right and the sign-in has steps left (a second factor, a new password): the sign-in page sends
 * the browser on to them (lib/auth/second-factor/steps.ts). Nothing about the account is in the code.
 */
export class SignInStepsError extends CredentialsSignin {
  override code = "steps";
}

/** Why the portal's token signed no one in, for /api/embed/session to answer with its code (nothing sensitive). */
export class PortalTokenError extends CredentialsSignin {
  override code = "portal_token";
  readonly problem: PortalTokenProblem | "sso-off";
  constructor(problem: PortalTokenProblem | "sso-off") {
    super();
    this.problem = problem;
  }
}

const PASSWORD: Door = { kind: "password" };

/** A password session's agent: the role is the operator's (the CLI), and the session holds the password it was opened with. */
const passwordUser = (agent: Agent) => ({
  id: agent.id,
  name: agent.name,
  email: agent.email,
  role: agent.role,
  door: PASSWORD,
  identityId: null,
  credential: passwordCredential(agent.passwordHash!),
});

/** A refused password sign-in, for the security log: the account when the e-mail is one's, else its keyed hash. */
async function logPasswordRefusal(
  email: string | undefined,
  address: string,
  result: Exclude<SignInResult, { ok: true }>,
) {
  const agentId = "agentId" in result ? (result.agentId ?? null) : null;
  const fields = { door: "password", agentId, address, ...(agentId ? {} : { emailTyped: email }) };
  await securityEvent("auth.sign_in", { ...fields, outcome: "failure", reason: result.reason });
  if (result.reason === "locked" && result.lockout) {
    await securityEvent("auth.lockout", {
      ...fields,
      outcome: "failure",
      reason: result.lockout,
      details: { retryAfterSeconds: result.retryAfterSeconds },
    });
  }
}

const passwordProvider = Credentials({
  // `challenge` and `returnTo`: from the sign-in form's action, for the steps a second factor or a new password
  // adds (lib/actions/auth.ts); without them such a sign-in cannot go on.
  credentials: {
    email: { label: "E-mail" },
    password: { label: "Senha", type: "password" },
    challenge: {},
    returnTo: {},
  },
  async authorize(raw, request) {
    const address = clientAddress(request.headers);
    const credentials = parseSignInCredentials({ email: raw?.email, password: raw?.password });
    if (!credentials.ok) {
      countSignInRefusal("password", "malformed");
      const typed = typeof raw?.email === "string" && raw.email.length <= 254 ? raw.email : undefined;
      await securityEvent("auth.sign_in", {
        outcome: "failure",
        door: "password",
        agentId: null,
        address,
        emailTyped: typed,
        reason: "malformed",
      });
      return null;
    }
    const result = await authenticateAgent(await getDb(), {
      email: credentials.email,
      password: credentials.password,
      address,
    });
    if (result.ok) {
      const { agent } = result;
      if (await passwordSignInSteps(agent, { challenge: raw?.challenge, returnTo: raw?.returnTo })) {
        throw new SignInStepsError();
      }
      await completeSignIn(await getDb(), agent.email);
      return passwordUser(agent);
    }
    countSignInRefusal("password", result.reason);
    await logPasswordRefusal(credentials.email, address, result);
    if (result.reason === "locked") throw new AccountLockedError(result.retryAfterSeconds);
    if (result.reason === "busy") throw new SignInBusyError();
    return null;
  },
});

/** The end of a password sign-in that had steps: every one done, its session opens (once). */
const signInStepsProvider = Credentials({
  id: "sign-in-steps",
  name: "Password sign-in steps",
  credentials: { token: {} },
  async authorize(raw) {
    const agent = await completeSignInSteps(raw?.token);
    return agent ? passwordUser(agent) : null;
  },
});

/**
 * A portal token refused, for the log (never the token). One no portal signed (garbage, a forged signature) is
 * said once every few minutes per address and check: anyone can post those, as fast as they like.
 */
async function logPortalRefusal(result: Extract<PortalSignIn, { ok: false }>, address: string) {
  log.warn("auth.embed_sign_in_refused", { reason: result.problem, detail: result.detail });
  const fields = {
    outcome: "failure" as const,
    door: result.issuer ? doorName({ kind: "portal", issuer: result.issuer }) : null,
    agentId: result.agentId ?? null,
    address,
    reason: result.problem,
    details: { check: result.detail },
  };
  if (result.issuer) await securityEvent("auth.sign_in", fields);
  else await securityEventOnce(`unsigned-token:${address}:${result.detail}`, "auth.sign_in", fields);
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  secret: resolveAuthSecret(getConfig()),
  trustHost: true,
  cookies: authCookies(getConfig()),
  // The cookie's own expiry; the session row's limits (idle, 12 hours from sign-in) are what really end it.
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_MS / 1000 },
  // Every page Auth.js would render itself, in English, is one of ours instead (verify-request is the e-mail
  // providers', which this app has none of: the sign-in page, should anyone open it).
  pages: { signIn: "/sign-in", error: "/sign-in", signOut: "/sign-out", verifyRequest: "/sign-in" },
  providers: [
    // PASSWORD_SIGN_IN=off: no password provider at all (the route handler also answers its endpoint with a 404).
    ...(getConfig().passwordSignIn ? [passwordProvider, signInStepsProvider] : []),
    Credentials({
      id: "embed-token",
      name: "Partner portal",
      credentials: { token: {} },
      async authorize(raw, request) {
        const { embed } = getConfig();
        const token = typeof raw?.token === "string" ? raw.token : "";
        if (embed.portals.length === 0) throw new PortalTokenError("sso-off");
        if (!token) throw new PortalTokenError("malformed");
        const result = await signInWithPortalToken(await getDb(), token, embed.portals);
        if (!result.ok) {
          await logPortalRefusal(result, clientAddress(request.headers));
          throw new PortalTokenError(result.problem);
        }
        return admittedUser(result);
      },
    }),
    ...oidcProviders(getConfig().oidc),
  ],
  callbacks: {
    /**
     * The IdP has vouched for someone (Auth.js checked the ID token): find, link or create their agent, or send
     * them back to the sign-in page with the reason. Refusals are redirects to a fixed `?error=` code.
     */
    async signIn({ user, account, profile }) {
      if (account?.provider !== OIDC_PROVIDER_ID) return true;
      const { oidc } = getConfig();
      if (!oidc || !profile) return signInErrorPath("oidc_failed");
      const result = await signInWithOidc(await getDb(), profile, oidc);
      if (!result.ok) {
        log.warn("auth.oidc_sign_in_refused", { reason: result.refusal });
        await securityEvent("auth.sign_in", {
          outcome: "failure",
          door: doorName({ kind: "oidc", issuer: oidc.issuer }),
          agentId: result.agentId ?? null,
          reason: result.refusal,
        });
        return signInErrorPath(result.refusal);
      }
      log.info("auth.oidc_sign_in", {
        agentId: result.agent.id,
        outcome: result.outcome,
        role: result.role,
        // A role claim the token does not carry makes everyone an agent: the operator sees why here.
        ...(oidc.roleClaim ? { roleClaimPresent: hasClaim(profile, oidc.roleClaim) } : {}),
      });
      // Without a database adapter Auth.js hands this same object to the jwt callback: from here on it is the agent.
      Object.assign(user, admittedUser(result));
      return true;
    },
    async jwt({ token, user }) {
      if (user?.id) {
        // A sign-in, whichever the door: a new session row, whose id the cookie carries.
        if (!user.door) return null;
        const signIn = {
          agentId: user.id,
          door: user.door,
          identityId: user.identityId ?? null,
          role: user.role,
          credential: user.credential ?? null,
        };
        if (user.accountChange) await identityEvents(signIn, user.accountChange);
        return {
          sub: user.id,
          role: user.role,
          name: user.name,
          email: user.email,
          sid: await startSession(signIn),
        };
      }
      // Every later read of the cookie by Auth.js (`/api/auth/session`, sign-out) meets the same check as the
      // app's pages; null makes Auth.js drop the cookie. The role is the session's and the name and e-mail the
      // account's, as the database says now (a later sign-in through the IdP may have renamed them).
      if (!token.sub || !token.sid) return null;
      const live = await liveSessionAgent({ agentId: token.sub, sessionId: token.sid });
      return live ? { ...token, role: live.role, name: live.name, email: live.email } : null;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      if (token.role) session.user.role = token.role;
      return session;
    },
  },
  logger: {
    // Auth.js logs failed credentials as errors with their stack; one JSON line without details is enough.
    error(error) {
      // Inside an OIDC sign-in step the error is that step's, logged once with what it means (oidc-attempt.ts).
      if (noteAuthError(error)) return;
      const type = "type" in error && typeof error.type === "string" ? error.type : error.name;
      if (type === "CredentialsSignin") return;
      // A sign-in or sign-out posted without this site's CSRF token: another site's form, or a replayed one.
      if (type === "MissingCSRF") {
        void securityEvent("access.refused", {
          outcome: "failure",
          door: null,
          agentId: null,
          reason: "csrf",
        });
        return;
      }
      log.error("auth.error", { error: type });
    },
    warn(code) {
      log.warn("auth.warning", { code });
    },
    debug() {},
  },
}));
