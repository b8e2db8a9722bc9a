import type { PartnerSaleRequestBody } from "../lib/provider/types";
import { birthDateProblem } from "../lib/validation/birth-date";
import { emailProblem, MAX_EXTERNAL_ID_LENGTH, nameProblem } from "../lib/validation/contact";
import { cpfProblem } from "../lib/validation/cpf";
import { phoneProblem } from "../lib/validation/phone";
import { UUID_PATTERN } from "./plans";

// The contract is the app's own request type: the sandbox validates exactly what the client is typed to send.
export type PartnerSale = PartnerSaleRequestBody;

type FieldName = keyof PartnerSale;

export type SaleValidation = { ok: true; sale: PartnerSale } | { ok: false; invalidFields: FieldName[] };

const MAX_OPTIONAL_TEXT_LENGTH = MAX_EXTERNAL_ID_LENGTH;

const isEmail = (value: string) => emailProblem(value) === null;
const isName = (value: string) => nameProblem(value.trim()) === null;

const isOptionalText = (value: string) => value.trim().length > 0 && value.length <= MAX_OPTIONAL_TEXT_LENGTH;

interface FieldRule {
  required: boolean;
  valid: (value: string, today: Date) => boolean;
}

const FIELD_RULES: Record<FieldName, FieldRule> = {
  customerDocument: { required: true, valid: (value) => cpfProblem(value) === null },
  customerEmail: { required: true, valid: isEmail },
  customerPhone: { required: true, valid: (value) => phoneProblem(value) === null },
  customerName: { required: true, valid: isName },
  planId: { required: true, valid: (value) => UUID_PATTERN.test(value) },
  partnerSource: { required: false, valid: isOptionalText },
  externalId: { required: false, valid: isOptionalText },
  birthDate: { required: false, valid: (value, today) => birthDateProblem(value, today) === null },
};

export function validateSale(body: Record<string, unknown>, today: Date): SaleValidation {
  const invalidFields: FieldName[] = [];
  const sale: Record<string, string> = {};
  for (const [field, rule] of Object.entries(FIELD_RULES) as [FieldName, FieldRule][]) {
    const value = body[field];
    // Only absence makes an optional field fine: "" or null means the caller forgot to leave it out.
    if (value === undefined && !rule.required) continue;
    if (typeof value === "string" && rule.valid(value, today)) sale[field] = value;
    else invalidFields.push(field);
  }
  if (invalidFields.length > 0) return { ok: false, invalidFields };
  return { ok: true, sale: sale as unknown as PartnerSale };
}

export function invalidFieldsMessage(fields: readonly string[]): string {
  return `Campos inválidos: ${fields.join(", ")}.`;
}
