import { textProblem } from "./text";

/**
 * A field of what a server action was posted. An action is a public endpoint: whatever calls it may send something
 * other than a form, or a field that is a file. Text it can use, or "" (not a form, not text, longer than
 * `maxLength`, control characters).
 */
export function formText(formData: unknown, name: string, maxLength: number): string {
  if (!(formData instanceof FormData)) return "";
  const value = formData.get(name);
  return typeof value === "string" && textProblem(value, { maxLength }) === null ? value : "";
}

/** A new password as typed: its own rules (lib/auth/password-policy.ts) say what is wrong with it, so none here. */
export function formPassword(formData: unknown, name: string): string {
  if (!(formData instanceof FormData)) return "";
  const value = formData.get(name);
  return typeof value === "string" ? value.slice(0, 4_096) : "";
}
