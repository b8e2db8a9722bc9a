import { describe, expect, it } from "vitest";
import { createSaleSchema, EMPTY_SALE, fieldErrorsOf, type SaleFormValues } from "./sale";

const PLAN = "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14";
const schema = createSaleSchema({ planIds: [PLAN], today: () => new Date(2026, 10, 22) });
const valid: SaleFormValues = {
  customerDocument: "529.982.247-25",
  customerName: "  Maria   Conceição D'Ávila ",
  customerEmail: " Maria.Souza@Example.COM ",
  customerPhone: "(11) 98765-4321",
  planId: PLAN,
  birthDate: "17/05/1990",
  externalId: " CRM-42 ",
};

function errorsOf(values: Partial<SaleFormValues>) {
  const result = schema.safeParse({ ...valid, ...values });
  return result.success ? {} : fieldErrorsOf(result.error);
}

describe("the sale schema", () => {
  it("turns what was typed into what is sent", () => {
    expect(schema.parse(valid)).toEqual({
      customerDocument: "52998224725",
      customerName: "Maria Conceição D'Ávila",
      customerEmail: "maria.souza@example.com",
      customerPhone: "11987654321",
      planId: PLAN,
      externalId: "CRM-42",
      birthDate: "1990-05-17",
    });
  });

  it("leaves empty optional fields out, never as empty strings", () => {
    const sale = schema.parse({ ...valid, birthDate: "", externalId: "  " });
    expect(Object.keys(sale)).toEqual([
      "customerDocument",
      "customerName",
      "customerEmail",
      "customerPhone",
      "planId",
    ]);
  });

  it("accepts raw digits, a landline, and an ISO date from the JSON API", () => {
    expect(
      schema.parse({
        ...valid,
        customerDocument: "52998224725",
        customerPhone: "1133334444",
        birthDate: "1990-05-17",
      }),
    ).toMatchObject({
      customerDocument: "52998224725",
      customerPhone: "1133334444",
      birthDate: "1990-05-17",
    });
  });

  it.each([
    ["customerDocument", "529.982.247-26", "CPF inválido: confira os dígitos verificadores."],
    ["customerDocument", "111.111.111-11", "CPF inválido: os dígitos não podem ser todos iguais."],
    ["customerDocument", "529.982.247", "O CPF deve ter 11 dígitos."],
    ["customerDocument", "", "Informe o CPF."],
    ["customerName", "Al", "O nome deve ter pelo menos 3 caracteres."],
    ["customerName", "Maria 2", "Use apenas letras, espaços, apóstrofo ('), hífen (-) e ponto."],
    ["customerEmail", "maria@", "E-mail inválido: use o formato nome@dominio.com.br."],
    ["customerEmail", "maria@exemplo", "E-mail inválido: use o formato nome@dominio.com.br."],
    ["customerPhone", "(20) 98765-4321", "DDD inválido."],
    ["customerPhone", "(11) 88765-4321", "Celular com 11 dígitos deve ter 9 logo após o DDD."],
    [
      "customerPhone",
      "(11) 9876-5432",
      "Telefone fixo com 10 dígitos deve começar com 2, 3, 4 ou 5 após o DDD.",
    ],
    ["customerPhone", "(11) 9876", "Informe DDD e número: 10 dígitos (fixo) ou 11 (celular)."],
    ["planId", "", "Escolha o plano."],
    ["planId", "00000000-0000-4000-8000-000000000000", "Plano não encontrado no catálogo."],
    ["birthDate", "31/02/2000", "Esta data não existe."],
    ["birthDate", "01/01/2030", "A data de nascimento não pode estar no futuro."],
    ["birthDate", "01/01/1890", "Confira o ano: a idade passaria de 130 anos."],
    ["birthDate", "1/1/90", "Use o formato DD/MM/AAAA."],
    ["birthDate", "ontem", "Use o formato DD/MM/AAAA."],
    ["birthDate", "n/d", "Use o formato DD/MM/AAAA."],
    ["externalId", "x".repeat(101), "Use no máximo 100 caracteres."],
  ])("refuses %s %j: %s", (field, value, message) => {
    expect(errorsOf({ [field]: value })).toEqual({ [field]: message });
  });

  it("reports every empty required field at once", () => {
    expect(Object.keys(errorsOf(EMPTY_SALE))).toEqual([
      "customerDocument",
      "customerName",
      "customerEmail",
      "customerPhone",
      "planId",
    ]);
  });

  it("without a catalogue takes any UUID as the plan", () => {
    const open = createSaleSchema({ planIds: null });
    expect(open.parse({ ...valid, planId: "00000000-0000-4000-8000-000000000000" }).planId).toBe(
      "00000000-0000-4000-8000-000000000000",
    );
    expect(fieldErrorsOf(open.safeParse({ ...valid, planId: "plano-1" }).error!)).toEqual({
      planId: "Identificador de plano inválido: use o formato UUID.",
    });
  });
});
