import { onlyDigits } from "@/lib/validation/cpf";
import { nationalPhoneDigits } from "@/lib/validation/phone";
import { isUuid } from "@/lib/validation/sale";
import { MIN_SEARCH_LENGTH } from "./history-filter";
import { parseProtocol } from "./protocol";

/**
 * What one search box can mean, read from what was typed: each kind the text can be is looked for, and a sale
 * matching any of them is found. Exact kinds (CPF, phone, protocol, submissionId, the partner's customer id) use
 * their own indexes; `contains` (part of a name, accents ignored, or of an e-mail) uses the trigram indexes.
 */
export interface SaleSearch {
  /** As typed (trimmed): the partner's customer id is matched exactly. */
  text: string;
  /** Lower case, for part of the customer's name (accents folded by the database) or e-mail. */
  contains: string | null;
  cpf: string | null;
  phone: string | null;
  /** Stored form, "7KQ2MX9R4B". */
  protocol: string | null;
  submissionId: string | null;
}

const DIGITS_AND_PUNCTUATION = /^[\d\s.\-()/+]+$/;

export function saleSearch(text: string): SaleSearch {
  const numeric = DIGITS_AND_PUNCTUATION.test(text);
  const digits = numeric ? onlyDigits(text) : "";
  const phone = numeric ? nationalPhoneDigits(digits) : "";
  return {
    text,
    contains: !numeric && text.length >= MIN_SEARCH_LENGTH ? text.toLowerCase() : null,
    cpf: digits.length === 11 ? digits : null,
    phone: phone.length === 10 || phone.length === 11 ? phone : null,
    protocol: parseProtocol(text),
    submissionId: isUuid(text) ? text.toLowerCase() : null,
  };
}
