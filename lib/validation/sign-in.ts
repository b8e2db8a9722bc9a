import { MAX_EMAIL_LENGTH } from "./contact";
import { textProblem } from "./text";

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

export type SignInField = "email" | "password";

export type SignInCredentials =
  | { ok: true; email: string; password: string }
  /** `fieldErrors` for what is missing; none when the input could never be right (answered as a wrong password). */
  | { ok: false; fieldErrors: Partial<Record<SignInField, string>> };

/**
 * What a sign-in may send on to the password check. Input no account could match (too long, control characters,
 * not text) stops here, so argon2 never sees megabytes and the database never sees a NUL; the person reads the
 * ordinary "wrong e-mail or password", which tells an attacker nothing more.
 */
export function parseSignInCredentials(raw: { email: unknown; password: unknown }): SignInCredentials {
  const email = typeof raw.email === "string" ? raw.email.trim() : "";
  const password = typeof raw.password === "string" ? raw.password : "";
  if (!email || !password) {
    return {
      ok: false,
      fieldErrors: {
        ...(email ? {} : { email: "Informe o e-mail." }),
        ...(password ? {} : { password: "Informe a senha." }),
      },
    };
  }
  const plausible =
    textProblem(email, { maxLength: MAX_EMAIL_LENGTH }) === null &&
    textProblem(password, { maxLength: PASSWORD_MAX_LENGTH }) === null;
  return plausible ? { ok: true, email, password } : { ok: false, fieldErrors: {} };
}
