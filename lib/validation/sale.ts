import { pt } from "zod/locales";
import * as z from "zod/mini";
import { birthDateProblem, brazilianDateToIso, type BirthDateProblem } from "./birth-date";
import {
  emailProblem,
  MAX_EXTERNAL_ID_LENGTH,
  nameProblem,
  normalizeName,
  type NameProblem,
} from "./contact";
import { cpfProblem, onlyDigits, type CpfProblem } from "./cpf";
import { nationalPhoneDigits, phoneProblem, type PhoneProblem } from "./phone";
import { fail, field, fieldErrorsOf as fieldErrorsAmong, ok, type FieldRule, type Parsed } from "./field";

// Messages zod writes itself (a number where text was expected, an array, an object) are Portuguese too. Only
// programs send such values (the JSON API): the form's inputs are always text, so the browser's bundle goes
// without the locale (about 1.2 kB gzipped; `typeof window` is fixed at build time for each side).
if (typeof window === "undefined") z.config(pt());

/**
 * The sale form's one schema, shared by the browser (zodResolver) and the server (safeParse). Fields carry the
 * upstream names; the output is the sale exactly as it is sent ("sent as"), optionals left out when empty.
 */
export const SALE_FIELDS = [
  "customerDocument",
  "customerName",
  "customerEmail",
  "customerPhone",
  "planId",
  "birthDate",
  "externalId",
] as const;

export type SaleField = (typeof SALE_FIELDS)[number];
export type SaleFormValues = Record<SaleField, string>;

export const EMPTY_SALE: SaleFormValues = {
  customerDocument: "",
  customerName: "",
  customerEmail: "",
  customerPhone: "",
  planId: "",
  birthDate: "",
  externalId: "",
};

const CPF_MESSAGES: Record<CpfProblem, string> = {
  length: "O CPF deve ter 11 dígitos.",
  repeated: "CPF inválido: os dígitos não podem ser todos iguais.",
  "check-digit": "CPF inválido: confira os dígitos verificadores.",
};

const PHONE_MESSAGES: Record<PhoneProblem, string> = {
  length: "Informe DDD e número: 10 dígitos (fixo) ou 11 (celular).",
  ddd: "DDD inválido.",
  mobile: "Celular com 11 dígitos deve ter 9 logo após o DDD.",
  landline: "Telefone fixo com 10 dígitos deve começar com 2, 3, 4 ou 5 após o DDD.",
};

const NAME_MESSAGES: Record<NameProblem, string> = {
  short: "O nome deve ter pelo menos 3 caracteres.",
  long: "O nome deve ter no máximo 120 caracteres.",
  characters: "Use apenas letras, espaços, apóstrofo ('), hífen (-) e ponto.",
};

const BIRTH_DATE_MESSAGES: Record<BirthDateProblem, string> = {
  format: "Use o formato DD/MM/AAAA.",
  invalid: "Esta data não existe.",
  future: "A data de nascimento não pode estar no futuro.",
  "too-old": "Confira o ano: a idade passaria de 130 anos.",
};

const EMAIL_TOO_LONG = "O e-mail deve ter no máximo 254 caracteres.";
const EXTERNAL_ID_TOO_LONG = "Use no máximo 100 caracteres.";
const PLAN_ID_FORMAT = "Identificador de plano inválido: use o formato UUID.";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

export function parseCpf(raw: string): Parsed<string> {
  if (!raw.trim()) return fail("Informe o CPF.");
  if (/[^\d.\-\s]/.test(raw)) return fail("O CPF deve conter apenas números.");
  const digits = onlyDigits(raw);
  const problem = cpfProblem(digits);
  return problem ? fail(CPF_MESSAGES[problem]) : ok(digits);
}

export function parseName(raw: string): Parsed<string> {
  const name = normalizeName(raw);
  if (!name) return fail("Informe o nome completo.");
  const problem = nameProblem(name);
  return problem ? fail(NAME_MESSAGES[problem]) : ok(name);
}

export function parseEmail(raw: string): Parsed<string> {
  const email = raw.trim().toLowerCase();
  if (!email) return fail("Informe o e-mail.");
  const problem = emailProblem(email);
  if (problem === "length") return fail(EMAIL_TOO_LONG);
  return problem ? fail("E-mail inválido: use o formato nome@dominio.com.br.") : ok(email);
}

export function parsePhone(raw: string): Parsed<string> {
  if (!raw.trim()) return fail("Informe o telefone.");
  if (/[^\d()\-\s+]/.test(raw)) return fail("O telefone deve conter apenas números.");
  const digits = nationalPhoneDigits(onlyDigits(raw));
  const problem = phoneProblem(digits);
  return problem ? fail(PHONE_MESSAGES[problem]) : ok(digits);
}

export function parsePlanId(raw: string, planIds: readonly string[] | null): Parsed<string> {
  const id = raw.trim().toLowerCase();
  if (!id) return fail("Escolha o plano.");
  if (!isUuid(id)) return fail(PLAN_ID_FORMAT);
  if (planIds && !planIds.some((planId) => planId.toLowerCase() === id)) {
    return fail("Plano não encontrado no catálogo.");
  }
  return ok(planIds?.find((planId) => planId.toLowerCase() === id) ?? id);
}

/** DD/MM/AAAA from the form, or YYYY-MM-DD from the JSON API; "" means not given. */
export function parseBirthDate(raw: string, today: Date): Parsed<string | undefined> {
  const value = raw.trim();
  if (!value) return ok(undefined);
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : brazilianDateToIso(value);
  if (!iso) return fail(BIRTH_DATE_MESSAGES.format);
  const problem = birthDateProblem(iso, today);
  return problem ? fail(BIRTH_DATE_MESSAGES[problem]) : ok(iso);
}

export function parseExternalId(raw: string): Parsed<string | undefined> {
  const value = raw.trim();
  if (!value) return ok(undefined);
  return value.length > MAX_EXTERNAL_ID_LENGTH ? fail(EXTERNAL_ID_TOO_LONG) : ok(value);
}

// Raw input past these lengths is refused before any other rule, with the field's own "too long" message. The
// room above each field's limit is for what trimming, masks and collapsed spaces take away.
const RULES: Record<SaleField, FieldRule> = {
  customerDocument: { maxLength: 32, foldsWhitespace: true, tooLong: CPF_MESSAGES.length },
  customerName: { maxLength: 240, foldsWhitespace: true, tooLong: NAME_MESSAGES.long },
  customerEmail: { maxLength: 320, tooLong: EMAIL_TOO_LONG },
  customerPhone: { maxLength: 32, foldsWhitespace: true, tooLong: PHONE_MESSAGES.length },
  planId: { maxLength: 64, tooLong: PLAN_ID_FORMAT },
  birthDate: { maxLength: 32, tooLong: BIRTH_DATE_MESSAGES.format },
  externalId: { maxLength: 200, tooLong: EXTERNAL_ID_TOO_LONG },
};

export function createSaleSchema({
  planIds,
  today = () => new Date(),
}: {
  planIds: readonly string[] | null;
  today?: () => Date;
}) {
  return z.pipe(
    z.object({
      customerDocument: field(parseCpf, RULES.customerDocument),
      customerName: field(parseName, RULES.customerName),
      customerEmail: field(parseEmail, RULES.customerEmail),
      customerPhone: field(parsePhone, RULES.customerPhone),
      planId: field((raw) => parsePlanId(raw, planIds), RULES.planId),
      birthDate: field((raw) => parseBirthDate(raw, today()), RULES.birthDate),
      externalId: field(parseExternalId, RULES.externalId),
    }),
    // Optional fields are left out when empty: never "" and never null upstream.
    z.transform(({ birthDate, externalId, ...required }) => ({
      ...required,
      ...(externalId ? { externalId } : {}),
      ...(birthDate ? { birthDate } : {}),
    })),
  );
}

export type SaleSchema = ReturnType<typeof createSaleSchema>;
export type ValidSale = z.output<SaleSchema>;

/** Field → first message, for server answers and for mapping upstream rejections. */
export function fieldErrorsOf(error: z.core.$ZodError): Partial<Record<SaleField, string>> {
  return fieldErrorsAmong(error, SALE_FIELDS);
}
