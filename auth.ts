import NextAuth, { CredentialsSignin, type DefaultSession, type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { signInWithEmbedToken } from "@/lib/auth/embed-token";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { SESSION_COOKIE } from "@/lib/auth/cookie-names";
import { authenticateAgent } from "@/lib/auth/sign-in";
import { getDb } from "@/lib/db";
import type { AgentRole } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { log } from "@/lib/log";
import { parseSignInCredentials } from "@/lib/validation/sign-in";

declare module "next-auth" {
  interface User {
    role: AgentRole;
  }
  interface Session {
    user: { id: string; role: AgentRole } & DefaultSession["user"];
    /** When the agent signed in (ms): sessions older than the agent's `sessionsValidFrom` are refused. */
    authTime: number;
  }
}

declare module "@auth/core/jwt" {
  interface JWT {
    role?: AgentRole;
    authTime?: number;
  }
}

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

/** The code carries the wait, so the sign-in page can say how long (it holds nothing sensitive). */
export class AccountLockedError extends CredentialsSignin {
  constructor(retryAfterSeconds: number) {
    super();
    this.code = `locked:${retryAfterSeconds}`;
  }
}

/** Too many password checks under way: the sign-in page asks to try again in a few seconds. */
export class SignInBusyError extends CredentialsSignin {
  override code = "busy";
}

// Next appends the peer address to X-Forwarded-For; entries to its left are whatever the client sent.
function clientAddress(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
  return forwarded || "unknown";
}

/** The code names the problem so the embedded page can explain it; it holds nothing sensitive. */
export class EmbedTokenError extends CredentialsSignin {
  constructor(problem: string) {
    super();
    this.code = `embed:${problem}`;
  }
}

// Inside a partner portal's iframe the app is a third party: its cookies must be SameSite=None, Secure and
// Partitioned (CHIPS) to be stored and sent at all.
function embeddedCookies(): NextAuthConfig["cookies"] {
  const options = { httpOnly: true, sameSite: "none" as const, path: "/", secure: true, partitioned: true };
  return {
    sessionToken: { name: SESSION_COOKIE, options },
    callbackUrl: { name: "authjs.callback-url", options },
    csrfToken: { name: "authjs.csrf-token", options },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  secret: resolveAuthSecret(getConfig()),
  trustHost: true,
  ...(getConfig().embed.allowedOrigins.length > 0 ? { cookies: embeddedCookies() } : {}),
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: "/sign-in", error: "/sign-in" },
  providers: [
    Credentials({
      credentials: { email: { label: "E-mail" }, password: { label: "Senha", type: "password" } },
      async authorize(raw, request) {
        const credentials = parseSignInCredentials({ email: raw?.email, password: raw?.password });
        if (!credentials.ok) return null;
        const result = await authenticateAgent(await getDb(), {
          email: credentials.email,
          password: credentials.password,
          address: clientAddress(request),
        });
        if (result.ok) {
          const { agent } = result;
          log.info("auth.sign_in", { agentId: agent.id });
          return { id: agent.id, name: agent.name, email: agent.email, role: agent.role };
        }
        log.warn("auth.sign_in_refused", { reason: result.reason });
        if (result.reason === "locked") throw new AccountLockedError(result.retryAfterSeconds);
        if (result.reason === "busy") throw new SignInBusyError();
        return null;
      },
    }),
    Credentials({
      id: "embed-token",
      name: "Partner portal",
      credentials: { token: {} },
      async authorize(raw) {
        const { embed } = getConfig();
        const token = typeof raw?.token === "string" ? raw.token : "";
        if (embed.portals.length === 0) throw new EmbedTokenError("sso-off");
        if (!token) throw new EmbedTokenError("invalid");
        const result = await signInWithEmbedToken(await getDb(), token, embed.portals);
        if (!result.ok) {
          log.warn("auth.embed_sign_in_refused", { reason: result.problem, detail: result.detail });
          throw new EmbedTokenError(result.problem);
        }
        log.info("auth.embed_sign_in", { agentId: result.agent.id });
        const { agent } = result;
        return { id: agent.id, name: agent.name, email: agent.email, role: agent.role };
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user?.id) {
        token.sub = user.id;
        token.role = user.role;
        token.authTime = Date.now();
      }
      return token;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      if (token.role) session.user.role = token.role;
      session.authTime = token.authTime ?? 0;
      return session;
    },
  },
  logger: {
    // Auth.js logs failed credentials as errors with their stack; one JSON line without details is enough.
    error(error) {
      const type = "type" in error && typeof error.type === "string" ? error.type : error.name;
      if (type === "CredentialsSignin") return;
      log.error("auth.error", { error: type });
    },
    warn(code) {
      log.warn("auth.warning", { code });
    },
    debug() {},
  },
}));
