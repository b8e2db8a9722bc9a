import { dictionary } from "@zxcvbn-ts/language-common";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../validation/sign-in";
import { textProblem } from "../validation/text";

/**
 * What a new password may be (ASVS 5.0 V6.2): 8 to 256 characters (V6.2.1, V6.2.9), any character but control
 * characters, no composition rules (V6.2.2, V6.2.5), none of the most common or breached passwords (V6.2.4), and
 * neither the account's e-mail nor its name (V6.2.11). Checked where a password is chosen (the agent's own change,
 * the operator's CLI); a sign-in checks only the password it is given.
 */
export type PasswordProblem =
  "too_short" | "too_long" | "invalid_characters" | "common" | "contains_email" | "contains_name";

/** Whose password it is: its e-mail and name are no part of it. */
export interface PasswordOwner {
  email: string;
  name: string;
}

// C0 and C1 control characters and DEL, anywhere (a sign-in's check, textProblem's, ignores them at the edges).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A common word followed by digits ("dragon2024") is that word: refused when the word is long enough. */
const TRAILING_DIGITS = /\d+$/;
const MIN_STRIPPED_COMMON_LENGTH = 6;
/** The shortest e-mail local part, or word of a name, that a password may not contain ("ana" may be anywhere). */
const MIN_CONTEXT_WORD_LENGTH = 4;

let common: Set<string> | undefined;

/** About 49,000 common and breached passwords (zxcvbn-ts's list, lower case), as a set on first use. */
function commonPasswords(): Set<string> {
  common ??= new Set(dictionary["passwords-common"]);
  return common;
}

/** For comparisons: lower case, accents stripped ("João" reads "joao"). */
function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

const codePoints = (text: string) => [...text].length;

function isCommon(password: string): boolean {
  const list = commonPasswords();
  const lowered = password.normalize("NFKC").trim().toLowerCase();
  if (list.has(lowered)) return true;
  const stripped = lowered.replace(TRAILING_DIGITS, "");
  return stripped !== lowered && codePoints(stripped) >= MIN_STRIPPED_COMMON_LENGTH && list.has(stripped);
}

function containsEmail(folded: string, email: string): boolean {
  const address = fold(email.trim());
  if (!address) return false;
  if (folded.includes(address)) return true;
  const at = address.lastIndexOf("@");
  const local = at > 0 ? address.slice(0, at) : "";
  return codePoints(local) >= MIN_CONTEXT_WORD_LENGTH && folded.includes(local);
}

function containsName(folded: string, name: string): boolean {
  return fold(name)
    .split(/[^\p{L}]+/u)
    .some((word) => codePoints(word) >= MIN_CONTEXT_WORD_LENGTH && folded.includes(word));
}

/**
 * Why `password` cannot be the new password of `person`'s account; null when it can. Length is counted in Unicode
 * code points of its NFC form, so "é" is one character however it was typed. The password itself is kept as typed.
 */
export function newPasswordProblem(password: string, person: PasswordOwner): PasswordProblem | null {
  // textProblem is the check a sign-in makes (lib/validation/sign-in.ts): a password it would not send on to the
  // password check could never be used, so none is accepted here. It counts UTF-16 code units (an emoji is two), so
  // a password of fewer than 256 code points but more than 256 units is too long for it, and for this policy.
  const text = textProblem(password, { maxLength: PASSWORD_MAX_LENGTH });
  const length = codePoints(password.normalize("NFC"));
  if (text === "long" || length > PASSWORD_MAX_LENGTH) return "too_long";
  if (text === "control" || CONTROL.test(password)) return "invalid_characters";
  if (length < PASSWORD_MIN_LENGTH) return "too_short";
  if (isCommon(password)) return "common";
  const folded = fold(password);
  if (containsEmail(folded, person.email)) return "contains_email";
  if (containsName(folded, person.name)) return "contains_name";
  return null;
}

const MESSAGES: Record<PasswordProblem, string> = {
  too_short: `A senha precisa ter pelo menos ${PASSWORD_MIN_LENGTH} caracteres.`,
  too_long: `A senha pode ter no máximo ${PASSWORD_MAX_LENGTH} caracteres.`,
  invalid_characters: "A senha tem caracteres que não podem ser usados (caracteres de controle).",
  common: "Essa senha está entre as mais usadas ou vazadas. Escolha outra.",
  contains_email: "A senha não pode conter o seu e-mail.",
  contains_name: "A senha não pode conter o seu nome.",
};

/** What to tell the person choosing the password (pt-BR): why it is refused. */
export function passwordProblemMessage(problem: PasswordProblem): string {
  return MESSAGES[problem];
}

/** The same, for the operator's CLI (English), after "The password is refused: ". */
export const PASSWORD_PROBLEM_EN: Record<PasswordProblem, string> = {
  too_short: `it must have at least ${PASSWORD_MIN_LENGTH} characters.`,
  too_long: `it may have at most ${PASSWORD_MAX_LENGTH} characters.`,
  invalid_characters: "it holds control characters, which cannot be used.",
  common: "it is among the most common or breached passwords.",
  contains_email: "it contains the account's e-mail address.",
  contains_name: "it contains the account's name.",
};
