import type { PartnerSaleRequestBody } from "../lib/partner-api/types";
import { birthDateProblem } from "../lib/validation/birth-date";
import { cpfProblem } from "../lib/validation/cpf";
import { phoneProblem } from "../lib/validation/phone";
import { UUID_PATTERN } from "./plans";

// The contract is the app's own request type: the sandbox validates exactly what the client is typed to send.
export type PartnerSale = PartnerSaleRequestBody;

type FieldName = keyof PartnerSale;

export type SaleValidation = { ok: true; sale: PartnerSale } | { ok: false; invalidFields: FieldName[] };

const MAX_EMAIL_LENGTH = 254;
const MAX_OPTIONAL_TEXT_LENGTH = 100;

// Accepts at least everything zod's z.email() accepts, so a value our form lets through is never refused here.
const EMAIL_PATTERN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
const NAME_PATTERN = /^[\p{L}\p{M} '.-]+$/u;

const isEmail = (value: string) => value.length <= MAX_EMAIL_LENGTH && EMAIL_PATTERN.test(value);

function isName(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length >= 3 && trimmed.length <= 120 && NAME_PATTERN.test(trimmed);
}

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
  return `Invalid fields: ${fields.join(", ")}.`;
}
