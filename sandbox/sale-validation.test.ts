import { describe, expect, it } from "vitest";
import { invalidFieldsMessage, validateSale } from "./sale-validation";

const today = new Date(2025, 5, 15, 12);
const valid = {
  customerDocument: "52998224725",
  customerEmail: "maria.souza@example.com",
  customerPhone: "1133334444",
  customerName: "Maria Souza",
  planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
};

const invalidFieldsOf = (overrides: Record<string, unknown>) => {
  const result = validateSale({ ...valid, ...overrides }, today);
  return result.ok ? [] : result.invalidFields;
};

describe("validateSale", () => {
  it("returns the sale without unknown fields", () => {
    expect(validateSale({ ...valid, birthDate: "2025-06-15", other: true }, today)).toEqual({
      ok: true,
      sale: { ...valid, birthDate: "2025-06-15" },
    });
  });

  it.each([
    ["customerEmail", "MARIA+vendas@Exemplo.COM.BR"],
    ["customerEmail", "o'neil@example.co"],
    ["customerEmail", `${"a".repeat(64)}@${"b".repeat(180)}.com`],
    ["customerName", "  João d'Ávila-Souza Jr.  "],
    ["customerName", "Zoë Ñandú"],
    ["customerName", "a".repeat(120)],
    ["planId", "3F6C1A52-8D4E-4B7A-9C21-5E0F7A9D2B14"],
    ["partnerSource", "x".repeat(100)],
    ["externalId", "1"],
  ])("accepts %s = %j", (field, value) => {
    expect(invalidFieldsOf({ [field]: value })).toEqual([]);
  });

  it.each([
    ["customerEmail", "maria"],
    ["customerEmail", "maria@example"],
    ["customerEmail", "maria @example.com"],
    ["customerEmail", " maria@example.com"],
    ["customerEmail", ".maria@example.com"],
    ["customerEmail", "ma..ria@example.com"],
    ["customerEmail", `${"a".repeat(64)}@${"b".repeat(190)}.com`],
    ["customerName", "  Jo  "],
    ["customerName", "a".repeat(121)],
    ["customerName", "Maria_Souza"],
    ["customerName", "Maria 😀"],
    ["customerName", 42],
    ["customerPhone", 11987654321],
    ["planId", "3f6c1a528d4e4b7a9c215e0f7a9d2b14"],
    ["planId", "{3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14}"],
    ["partnerSource", "   "],
    ["partnerSource", 7],
    ["externalId", false],
    ["birthDate", "1985-3-9"],
    ["birthDate", 19850309],
  ])("rejects %s = %j", (field, value) => {
    expect(invalidFieldsOf({ [field]: value })).toEqual([field]);
  });

  it("lists every invalid field in the upstream's order", () => {
    expect(invalidFieldsOf({ birthDate: null, customerName: "", customerDocument: undefined })).toEqual([
      "customerDocument",
      "customerName",
      "birthDate",
    ]);
  });
});

it("formats the message our client parses", () => {
  expect(invalidFieldsMessage(["customerDocument", "customerPhone"])).toBe(
    "Campos inválidos: customerDocument, customerPhone.",
  );
});
