export type TextProblem = "long" | "control";

export const CONTROL_CHARACTER_MESSAGE =
  "Remova os caracteres invisíveis ou de controle deste campo (digite o valor novamente).";

// C0 and C1 control characters and DEL. Tab and line breaks are whitespace where a field folds whitespace.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// Without the u flag a pattern sees UTF-16 code units: a high surrogate not followed by a low one, or the reverse.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface TextRule {
  /** Longest raw input read at all, before trimming or masks. */
  maxLength: number;
  /** The field folds or strips whitespace (names, masked digits): tab and line breaks are harmless there. */
  foldsWhitespace?: boolean;
}

/**
 * Text is text: no control characters (the database refuses NUL, and nobody types them) and no unpaired UTF-16
 * surrogate (not representable in UTF-8). Checked before any other rule, so such input never reaches a row.
 */
export function textProblem(raw: string, rule: TextRule): TextProblem | null {
  if (raw.length > rule.maxLength) return "long";
  const controls = rule.foldsWhitespace ? CONTROL_EXCEPT_WHITESPACE : CONTROL;
  if (controls.test(rule.foldsWhitespace ? raw : raw.trim()) || LONE_SURROGATE.test(raw)) return "control";
  return null;
}

/** Text from elsewhere (the provider) made safe to show and store: controls as spaces, lone surrogates dropped. */
export function cleanText(text: string, maxLength: number): string {
  return text
    .slice(0, maxLength)
    .replace(new RegExp(CONTROL.source, "g"), " ")
    .replace(new RegExp(LONE_SURROGATE.source, "g"), "")
    .trim();
}
