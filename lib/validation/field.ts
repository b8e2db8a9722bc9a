import * as z from "zod/mini";
import { CONTROL_CHARACTER_MESSAGE, textProblem, type TextRule } from "./text";

/** A field's own parse: its value, or the pt-BR message a person reads. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = (message: string): Parsed<never> => ({ ok: false, message });

export type FieldRule = TextRule & { tooLong: string };

/**
 * A text field as zod sees it: the raw text is refused past its length or with control characters (before any
 * other rule, with the field's own "too long" message), then `parse` turns it into the value or a message.
 */
export function field<T>(parse: (raw: string) => Parsed<T>, rule: FieldRule) {
  return z.pipe(
    z.string(),
    z.transform((raw: string, context) => {
      const problem = textProblem(raw, rule);
      const result = problem
        ? fail(problem === "long" ? rule.tooLong : CONTROL_CHARACTER_MESSAGE)
        : parse(raw);
      if (result.ok) return result.value;
      context.issues.push({ code: "custom", message: result.message, input: raw });
      return z.NEVER;
    }),
  );
}

/** Field → first message, for the fields in `names`. */
export function fieldErrorsOf<Name extends string>(
  error: z.core.$ZodError,
  names: readonly Name[],
): Partial<Record<Name, string>> {
  const errors: Partial<Record<Name, string>> = {};
  for (const issue of error.issues) {
    const key = issue.path[0];
    if (typeof key === "string" && (names as readonly string[]).includes(key))
      errors[key as Name] ??= issue.message;
  }
  return errors;
}
