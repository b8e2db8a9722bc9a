export type EmailProblem = "length" | "format";
export type NameProblem = "short" | "long" | "characters";

export const MAX_EMAIL_LENGTH = 254;
export const NAME_LENGTH = { min: 3, max: 120 } as const;
export const MAX_EXTERNAL_ID_LENGTH = 100;

// Local part as RFC 5322's dot-atom, a domain with at least one dot and a alphabetic top-level label.
const EMAIL_PATTERN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
// Letters with any accent, spaces, apostrophe, hyphen and dot: "Maria D'Ávila-Souza Jr."
const NAME_PATTERN = /^[\p{L}\p{M} '.-]+$/u;

export function emailProblem(email: string): EmailProblem | null {
  if (email.length > MAX_EMAIL_LENGTH) return "length";
  return EMAIL_PATTERN.test(email) ? null : "format";
}

/** The name as sent: trimmed, inner runs of spaces collapsed to one. */
export function normalizeName(name: string): string {
  return name.trim().replace(/\s+/g, " ");
}

export function nameProblem(name: string): NameProblem | null {
  if (name.length < NAME_LENGTH.min) return "short";
  if (name.length > NAME_LENGTH.max) return "long";
  return NAME_PATTERN.test(name) && /\p{L}/u.test(name) ? null : "characters";
}
