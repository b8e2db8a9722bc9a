import { describe, expect, it } from "vitest";
import { createSaleSchema, fieldErrorsOf, SALE_FIELDS } from "./sale";
import { parseSignInCredentials } from "./sign-in";
import { CONTROL_CHARACTER_MESSAGE, textProblem } from "./text";

describe("textProblem", () => {
  it.each([
    ["NUL", "Maria\u0000"],
    ["escape", "a\u001bb"],
    ["DEL", "a\u007fb"],
    ["C1 control", "a\u0085b"],
    ["a tab inside a value that keeps its spaces", "CRM\t42"],
    ["a lone high surrogate", "a\ud800b"],
    ["a lone low surrogate", "a\udc00b"],
    ["a reversed pair", "\udc00\ud800"],
  ])("refuses %s", (_name, value) => {
    expect(textProblem(value, { maxLength: 100 })).toBe("control");
  });

  it("accepts accents, emoji (a proper pair) and, where whitespace folds, tab and line breaks", () => {
    expect(textProblem("João 😀 D'Ávila", { maxLength: 100 })).toBeNull();
    expect(textProblem("Maria\tda\nSilva\r", { maxLength: 100, foldsWhitespace: true })).toBeNull();
    expect(textProblem(" CRM-42\n", { maxLength: 100 })).toBeNull();
  });

  it("refuses what is longer than the rule allows", () => {
    expect(textProblem("x".repeat(101), { maxLength: 100 })).toBe("long");
  });
});

describe("the sale schema with hostile input", () => {
  const schema = createSaleSchema({ planIds: null });
  const errorsFor = (value: unknown) => {
    const result = schema.safeParse(Object.fromEntries(SALE_FIELDS.map((field) => [field, value])));
    if (result.success) throw new Error("expected a failure");
    return fieldErrorsOf(result.error);
  };

  it.each([
    ["a number", 42, "um número"],
    ["an array", ["x"], "um vetor"],
    ["an object", { a: 1 }, "um objeto"],
    ["a boolean", true, "um valor booleano"],
    ["null", null, 'um valor "nulo"'],
  ])("answers %s in every field in Portuguese", (_name, value, received) => {
    const errors = errorsFor(value);
    expect(Object.keys(errors)).toEqual([...SALE_FIELDS]);
    for (const message of Object.values(errors)) {
      expect(message).toBe(`Entrada inválida: esperava um texto, recebeu ${received}`);
    }
  });

  it("refuses NUL and unpaired surrogates in every field with a field error", () => {
    for (const value of ["Maria\u0000Souza", "Maria\ud800Souza"]) {
      const errors = errorsFor(value);
      expect(Object.values(errors)).toEqual(SALE_FIELDS.map(() => CONTROL_CHARACTER_MESSAGE));
    }
  });

  it("refuses a megabyte in any field with the field's own length message", () => {
    expect(errorsFor("9".repeat(1_000_000))).toEqual({
      customerDocument: "O CPF deve ter 11 dígitos.",
      customerName: "O nome deve ter no máximo 120 caracteres.",
      customerEmail: "O e-mail deve ter no máximo 254 caracteres.",
      customerPhone: "Informe DDD e número: 10 dígitos (fixo) ou 11 (celular).",
      planId: "Identificador de plano inválido: use o formato UUID.",
      birthDate: "Use o formato DD/MM/AAAA.",
      externalId: "Use no máximo 100 caracteres.",
    });
  });
});

describe("parseSignInCredentials", () => {
  it("asks for what is missing", () => {
    expect(parseSignInCredentials({ email: " ", password: "" })).toEqual({
      ok: false,
      fieldErrors: { email: "Informe o e-mail.", password: "Informe a senha." },
    });
  });

  it("stops input no account could match, without a field error (answered as a wrong password)", () => {
    for (const input of [
      { email: "ana\u0000@example.com", password: "correct horse" },
      { email: "ana@example.com", password: "x".repeat(2 * 1024 * 1024) },
      { email: `${"a".repeat(300)}@example.com`, password: "correct horse" },
      { email: "ana@example.com", password: "a\ud800b" },
    ]) {
      expect(parseSignInCredentials(input)).toEqual({ ok: false, fieldErrors: {} });
    }
    expect(parseSignInCredentials({ email: ["x"], password: 1 }).ok).toBe(false);
  });

  it("passes a plausible pair through, the e-mail trimmed", () => {
    expect(parseSignInCredentials({ email: " Ana@Example.com ", password: " pass word " })).toEqual({
      ok: true,
      email: "Ana@Example.com",
      password: " pass word ",
    });
  });
});
