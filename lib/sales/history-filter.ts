import * as z from "zod/mini";
import type { SaleStatus } from "@/lib/db/schema";
import { parseIsoDate } from "@/lib/validation/birth-date";
import { fail, field, fieldErrorsOf, ok, type FieldRule, type Parsed } from "@/lib/validation/field";
import { isUuid } from "@/lib/validation/sale";

/** The statuses the history filters by, in the order of its chips. */
export const STATUS_FILTERS = [
  "unknown",
  "failed",
  "rejected",
  "accepted",
] as const satisfies readonly SaleStatus[];

export type StatusFilter = (typeof STATUS_FILTERS)[number];

/** Sales per page of the history. */
export const HISTORY_PAGE_SIZE = 50;

/** Shorter searches would match half the ledger by name and tell nobody anything. */
export const MIN_SEARCH_LENGTH = 3;

/** What the history (`/sales`), its export (`/sales/export`) and the dashboard's links narrow the ledger to. */
export interface HistoryFilter {
  status?: StatusFilter;
  /** One agent's sales (supervisors; an agent only ever sees their own). */
  agentId?: string;
  /** Calendar days in APP_TIME_ZONE, `YYYY-MM-DD`, both included. */
  from?: string;
  to?: string;
  /** The search box as typed (trimmed): CPF, name, e-mail, phone, partner's customer id or protocol. */
  search?: string;
}

/** Where a page starts: the sales older ("Mais antigas") or newer ("Mais recentes") than the sale it names. */
export interface HistoryCursor {
  direction: "older" | "newer";
  submissionId: string;
}

export interface HistoryView {
  filter: HistoryFilter;
  cursor?: HistoryCursor;
}

/** The query string's names: `?status=unknown&agent=…&from=01/04/2026&to=30/04/2026&q=…&after=…`. */
export const HISTORY_PARAMS = ["status", "agent", "from", "to", "q", "after", "before"] as const;
export type HistoryParam = (typeof HISTORY_PARAMS)[number];

/** A view, and what was wrong with the parameters left out of it (param → pt-BR message). */
export interface ParsedHistoryView extends HistoryView {
  problems: Partial<Record<HistoryParam, string>>;
  /** The parameters as the address carried them (the first of each), to show a set-aside value as typed. */
  typed: Partial<Record<HistoryParam, string>>;
}

const DATE_FORMAT = "Use uma data no formato DD/MM/AAAA.";
const SEARCH_TOO_LONG = "A busca aceita no máximo 254 caracteres.";

function optional<T>(parse: (value: string) => Parsed<T>) {
  return (raw: string): Parsed<T | undefined> => {
    const value = raw.trim();
    return value ? parse(value) : ok(undefined);
  };
}

function parseStatus(value: string): Parsed<StatusFilter> {
  const status = STATUS_FILTERS.find((candidate) => candidate === value);
  return status ? ok(status) : fail("Situação desconhecida: mostrando todas as situações.");
}

/** `DD/MM/AAAA` (also `D/M/AAAA`) as people type it, or `YYYY-MM-DD`; a real day between 2000 and 2999. */
export function parseDay(value: string): Parsed<string> {
  const brazilian = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  const iso = brazilian
    ? `${brazilian[3]}-${brazilian[2]!.padStart(2, "0")}-${brazilian[1]!.padStart(2, "0")}`
    : value;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return fail(DATE_FORMAT);
  const date = parseIsoDate(iso);
  if (!date) return fail("Esta data não existe.");
  if (date.year < 2000 || date.year > 2999) return fail("Confira o ano: use uma data entre 2000 e 2999.");
  return ok(iso);
}

// A part of a name or e-mail is found through trigram indexes, which need three letters or digits in a row: "a b c"
// or "@.-" has none, and would be compared with every sale instead. Digits (CPF, phone, the partner's id) are looked
// up exactly, by their own indexes; a protocol or a submission id has such a run anyway.
const SEARCHABLE = /[\p{L}\p{N}]{3}|^[\d\s.\-()/+]+$/u;
export const SEARCH_TOO_BROAD_MESSAGE =
  "Busca ampla demais: digite ao menos 3 letras ou números seguidos (parte do nome ou do e-mail), ou o CPF, telefone ou protocolo completo.";

function parseSearch(value: string): Parsed<string> {
  const search = value.replace(/\s+/g, " ");
  if (search.length < MIN_SEARCH_LENGTH) {
    return fail(`Digite pelo menos ${MIN_SEARCH_LENGTH} caracteres para buscar.`);
  }
  return SEARCHABLE.test(search) ? ok(search) : fail(SEARCH_TOO_BROAD_MESSAGE);
}

const uuid = (message: string) => (value: string) =>
  isUuid(value) ? ok(value.toLowerCase()) : fail(message);
const PAGE_MESSAGE = "Endereço de página inválido: mostrando as vendas mais recentes.";

// Anything longer than these is not something a person typed or a link of ours carries.
const RULES: Record<HistoryParam, FieldRule> = {
  status: { maxLength: 32, tooLong: "Situação desconhecida: mostrando todas as situações." },
  agent: { maxLength: 64, tooLong: "Agente desconhecido: mostrando todos os agentes." },
  from: { maxLength: 32, tooLong: DATE_FORMAT },
  to: { maxLength: 32, tooLong: DATE_FORMAT },
  q: { maxLength: 254, foldsWhitespace: true, tooLong: SEARCH_TOO_LONG },
  after: { maxLength: 64, tooLong: PAGE_MESSAGE },
  before: { maxLength: 64, tooLong: PAGE_MESSAGE },
};

const SCHEMA = z.object({
  status: z.optional(field(optional(parseStatus), RULES.status)),
  agent: z.optional(field(optional(uuid("Agente desconhecido: mostrando todos os agentes.")), RULES.agent)),
  from: z.optional(field(optional(parseDay), RULES.from)),
  to: z.optional(field(optional(parseDay), RULES.to)),
  q: z.optional(field(optional(parseSearch), RULES.q)),
  after: z.optional(field(optional(uuid(PAGE_MESSAGE)), RULES.after)),
  before: z.optional(field(optional(uuid(PAGE_MESSAGE)), RULES.before)),
});

type SearchParams = URLSearchParams | Record<string, string | string[] | undefined>;

function first(params: SearchParams, name: string): string | undefined {
  const value = params instanceof URLSearchParams ? params.get(name) : params[name];
  return (Array.isArray(value) ? value[0] : value) ?? undefined;
}

/**
 * The history's query string, read with the app's field rules: each parameter that is wrong in any way (too long,
 * control characters, an unknown status, a date that does not exist, a forged page cursor) is left out of the view
 * and explained in `problems`, never an error page: these are addresses people edit, bookmark and share.
 */
export function parseHistoryView(params: SearchParams): ParsedHistoryView {
  const raw: Partial<Record<HistoryParam, string>> = {};
  for (const name of HISTORY_PARAMS) {
    const value = first(params, name);
    if (value !== undefined) raw[name] = value;
  }
  const parsed = SCHEMA.safeParse(raw);
  const problems = parsed.success ? {} : fieldErrorsOf(parsed.error, HISTORY_PARAMS);
  // What is left once the wrong parameters are set aside always parses.
  const values = parsed.success
    ? parsed.data
    : SCHEMA.parse(Object.fromEntries(Object.entries(raw).filter(([name]) => !(name in problems))));

  const filter: HistoryFilter = {
    status: values.status,
    agentId: values.agent,
    from: values.from,
    to: values.to,
    search: values.q,
  };
  if (filter.from && filter.to && filter.from > filter.to) {
    problems.to = "A data final é anterior à inicial: confira o período.";
    delete filter.to;
  }
  const cursor: HistoryCursor | undefined = values.after
    ? { direction: "older", submissionId: values.after }
    : values.before
      ? { direction: "newer", submissionId: values.before }
      : undefined;
  return { filter: withoutEmpty(filter), cursor, problems, typed: raw };
}

function withoutEmpty(filter: HistoryFilter): HistoryFilter {
  return Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
}

/** "2026-04-03" → "03/04/2026", as the form shows it and the address carries it. */
export const brazilianDay = (iso: string) => iso.split("-").reverse().join("/");

/** The query string of a view ("?status=unknown&q=maria"), or "" for the newest page of the whole history. */
export function historyQuery({ filter, cursor }: HistoryView): string {
  const params = new URLSearchParams();
  if (filter.status) params.set("status", filter.status);
  if (filter.agentId) params.set("agent", filter.agentId);
  if (filter.from) params.set("from", brazilianDay(filter.from));
  if (filter.to) params.set("to", brazilianDay(filter.to));
  if (filter.search) params.set("q", filter.search);
  if (cursor) params.set(cursor.direction === "older" ? "after" : "before", cursor.submissionId);
  return params.size > 0 ? `?${params}` : "";
}
