import { describe, expect, it } from "vitest";
import {
  newPasswordProblem,
  PASSWORD_PROBLEM_EN,
  passwordProblemMessage,
  type PasswordProblem,
} from "./password-policy";

const ana = { email: "ana@example.com", name: "Ana Lima" };
const maria = { email: "Maria.Souza@x.com", name: "Maria Souza" };
const joao = { email: "jp@example.com", name: "João Pereira" };

describe("a new password", () => {
  it.each([
    ["password", "common"],
    ["12345678", "common"],
    ["senha123", "common"],
    ["PASSWORD", "common"],
    ["  Password ", "common"],
    // A common word of six letters or more, with digits after it.
    ["dragon2024", "common"],
    ["flamengo1", "common"],
  ] as const)("refuses %j as a common or breached password", (password, problem) => {
    expect(newPasswordProblem(password, ana)).toBe(problem);
  });

  it("takes a word of fewer than six letters followed by digits as any other password", () => {
    // "senha" is in the list, but only the whole password or a word of six letters or more is compared.
    expect(newPasswordProblem("senha98765432", ana)).toBeNull();
  });

  it.each([["Maria.Souza@x.com"], ["maria.souza@x.com!"], ["xx-MARIA.SOUZA-xx"]])(
    "refuses %j, which holds the account's e-mail",
    (password) => {
      expect(newPasswordProblem(password, maria)).toBe("contains_email");
    },
  );

  it("compares e-mails without accents or letter case, and only a local part of four characters or more", () => {
    expect(newPasswordProblem("meu-jose-secreto", { email: "josé@example.com", name: "Zé" })).toBe(
      "contains_email",
    );
    expect(newPasswordProblem("um jp bem escondido", { email: "jp@example.com", name: "Zé" })).toBeNull();
    expect(newPasswordProblem("senha jp@example.com", { email: "jp@example.com", name: "Zé" })).toBe(
      "contains_email",
    );
  });

  it.each([["joaopereira!!2024"], ["pereira-secreta-1"], ["JOÃO e a lua 99"], ["o joão de barro"]])(
    "refuses %j, which holds a word of the account's name",
    (password) => {
      expect(newPasswordProblem(password, joao)).toBe("contains_name");
    },
  );

  it("lets a name's short words be anywhere", () => {
    expect(newPasswordProblem("ana-mora-na-lua", { email: "x@example.com", name: "Ana Li" })).toBeNull();
  });

  it.each([
    ["cavalo correto bateria grampo"],
    ["Tr0ub4dor&3-but-longer"],
    ["coração de galinha"],
    ["🦜🦜 papagaio verde 🌴"],
    ["ação, reação e paçoca"],
    ["ab cd ef"],
  ])("accepts %j: any character, no composition rules", (password) => {
    expect(newPasswordProblem(password, ana)).toBeNull();
  });

  it("has 8 to 256 characters, counted as code points of its NFC form", () => {
    expect(newPasswordProblem("xk7-pq2", ana)).toBe("too_short");
    expect(newPasswordProblem("xk7-pq2m", ana)).toBeNull();
    const long = "cavalo correto bateria grampo ".repeat(9);
    expect(newPasswordProblem(long.slice(0, 256), ana)).toBeNull();
    expect(newPasswordProblem(long.slice(0, 257), ana)).toBe("too_long");
    // "é" typed as "e" and a combining accent is one character: seven of them are too few.
    expect(newPasswordProblem("e\u0301".repeat(7), ana)).toBe("too_short");
    expect(newPasswordProblem("é".repeat(8), ana)).toBeNull();
    // Four emoji and four letters: eight characters, whatever UTF-16 makes of them.
    expect(newPasswordProblem("🌴🌴🌴🌴abcd", ana)).toBeNull();
    expect(newPasswordProblem("", ana)).toBe("too_short");
  });

  it("refuses a length a sign-in would never read (longer than 256 UTF-16 code units)", () => {
    expect(newPasswordProblem("🌴".repeat(129), ana)).toBe("too_long");
  });

  it.each([
    ["\u0000abcdefgh"],
    ["abcd\u0007efgh"],
    ["abcdefgh\n"],
    ["\tabcdefgh"],
    ["abcd\u0085efgh"],
    ["abcdefg\ud800h"],
  ])("refuses control characters and broken text: %j", (password) => {
    expect(newPasswordProblem(password, ana)).toBe("invalid_characters");
  });

  it("says why, in Portuguese for people and English for the operator", () => {
    const problems: PasswordProblem[] = [
      "too_short",
      "too_long",
      "invalid_characters",
      "common",
      "contains_email",
      "contains_name",
    ];
    for (const problem of problems) {
      expect(passwordProblemMessage(problem)).toMatch(/^A senha |^Essa senha /);
      expect(PASSWORD_PROBLEM_EN[problem]).toMatch(/^it .+\.$/);
    }
    expect(passwordProblemMessage("too_short")).toBe("A senha precisa ter pelo menos 8 caracteres.");
    expect(passwordProblemMessage("too_long")).toBe("A senha pode ter no máximo 256 caracteres.");
    expect(passwordProblemMessage("common")).toBe(
      "Essa senha está entre as mais usadas ou vazadas. Escolha outra.",
    );
  });
});
