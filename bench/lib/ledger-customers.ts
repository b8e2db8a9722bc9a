import { cpfCheckDigits } from "../../lib/validation/cpf";

// Brazil's commonest first names and surnames, drawn evenly: a surname is in about one sale in 15, so searching part
// of a name meets both kinds of answer, one sale and tens of thousands.
const FIRST_NAMES = [
  "João",
  "Maria",
  "José",
  "Ana",
  "Antônio",
  "Francisca",
  "Carlos",
  "Luíza",
  "Paulo",
  "Márcia",
  "Pedro",
  "Adriana",
  "Lucas",
  "Juliana",
  "Luiz",
  "Patrícia",
  "Marcos",
  "Aline",
  "Rafael",
  "Fernanda",
];
const SURNAMES = [
  "Silva",
  "Santos",
  "Oliveira",
  "Souza",
  "Conceição",
  "Araújo",
  "Gonçalves",
  "Pereira",
  "Lima",
  "Gomes",
  "Ribeiro",
  "Carvalho",
  "Almeida",
  "Lopes",
  "Soares",
  "Fernandes",
  "Vieira",
  "Barbosa",
  "Rocha",
  "Dias",
  "Nascimento",
  "Andrade",
  "Moreira",
  "Nunes",
  "Marques",
  "Machado",
  "Mendes",
  "Freitas",
  "Cardoso",
  "Ramos",
];
const MAIL_DOMAINS = ["gmail.com", "hotmail.com", "outlook.com", "yahoo.com.br", "uol.com.br", "bol.com.br"];
const AREA_CODES = ["11", "21", "31", "41", "51", "61", "71", "81", "85", "27", "48", "62", "92", "19", "13"];

/** A customer as the sale form sends one (the API's field names and formats). */
export interface Customer {
  customerDocument: string;
  customerName: string;
  customerEmail: string;
  customerPhone: string;
  birthDate: string;
  externalId: string;
}

/** Seeded (mulberry32), so every run writes the same ledger. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const pick = <T>(values: readonly T[], random: () => number): T =>
  values[Math.floor(random() * values.length)]!;

const unaccented = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "");

/** A person's full name: first name and two surnames. */
export function personName(random: () => number): string {
  return `${pick(FIRST_NAMES, random)} ${pick(SURNAMES, random)} ${pick(SURNAMES, random)}`;
}

/**
 * Customer number `n`: a valid CPF no other number has (7919 is prime to 10⁹, so the bases never repeat), a name
 * and the rest drawn from `random`.
 */
export function customer(n: number, random: () => number): Customer {
  const base = String((n * 7919 + 123_456_789) % 1_000_000_000).padStart(9, "0");
  const name = personName(random);
  const [first, , last] = unaccented(name).toLowerCase().split(" ");
  const year = 1950 + Math.floor(random() * 56);
  const month = 1 + Math.floor(random() * 12);
  const day = 1 + Math.floor(random() * 28);
  return {
    customerDocument: base + cpfCheckDigits(base),
    customerName: name,
    customerEmail: `${first}.${last}${n}@${pick(MAIL_DOMAINS, random)}`,
    customerPhone: `${pick(AREA_CODES, random)}9${String(Math.floor(random() * 1e8)).padStart(8, "0")}`,
    birthDate: `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`,
    externalId: `CRM-${n}`,
  };
}

/**
 * The one customer the bench looks for by each exact key, among the first real sales: a name whose last word no
 * generated customer has, so its search matches one sale.
 */
export const PROBE_CUSTOMER: Customer = {
  customerDocument: "52998224725",
  customerName: "Conceição Araújo Brandão",
  customerEmail: "conceicao.brandao@provedor.com.br",
  customerPhone: "21988887777",
  birthDate: "1984-03-09",
  externalId: "PROBE-1",
};
