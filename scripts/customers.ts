import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Config } from "../lib/config/parse";
import { resolveAuthSecret } from "../lib/auth/secret";
import { customerDigestKey, customerDocumentDigest } from "../lib/customers/digest";
import { runRetention } from "../lib/customers/retention";
import { recordAuditEvent } from "../lib/db/queries/audit-events";
import { scrubPersonalData } from "../lib/log";
import {
  customerSales,
  eraseCustomer,
  StatisticsNotRebuiltError,
  type CustomerSale,
} from "../lib/db/queries/customer-data";
import { ERASURE_LABELS, formatDateTime, STATUS_LABELS } from "../lib/format";
import { formatProtocol } from "../lib/sales/protocol";
import { planName } from "../lib/plans";
import { parseCpf } from "../lib/validation/sale";
import { CommandError, runCli, UsageError, type CliContext } from "./cli";

const USAGE = `Answer a customer's requests about their personal data (LGPD art. 18), and run retention now.

  npm run customers -- find (--cpf CPF | --cpf-stdin) --reason R     the customer's sales, erased or not
  npm run customers -- export (--cpf CPF | --cpf-stdin) --reason R   everything held about them, as JSON (access)
  npm run customers -- erase (--cpf CPF | --cpf-stdin) --reason R    erases their personal data now
  npm run customers -- purge [--reason R]                            runs retention now (CUSTOMER_DATA_RETENTION_DAYS)

The CPF may be typed with or without punctuation; --cpf-stdin reads it from standard input, out of the shell's
history. Every command goes on the audit trail (npm run audit -- list) with who ran it and the reason: say why
(the request's ticket), never whose (no CPF, e-mail or phone in it). A sale still pending or unknown keeps its
data until a supervisor settles it: erase marks it, and it is erased once closed.
Works while the app runs: with the embedded database it goes through the app's socket in DATA_DIR.`;

function requireCpf(values: { cpf?: string; "cpf-stdin"?: boolean }): string {
  if (values.cpf !== undefined && values["cpf-stdin"])
    throw new UsageError("Give --cpf or --cpf-stdin, not both.");
  const value = values["cpf-stdin"] ? readFileSync(0, "utf8").trim() : values.cpf;
  if (value === undefined) throw new UsageError("--cpf (or --cpf-stdin) is required.");
  const cpf = parseCpf(value);
  if (!cpf.ok) throw new UsageError(`--cpf: ${cpf.message}`);
  return cpf.value;
}

function requireReason(value: string | undefined): string {
  const reason = value?.trim();
  if (!reason)
    throw new UsageError("--reason is required: say why (the request's ticket, the DPO's decision).");
  if (reason.length > 500) throw new UsageError("--reason has at most 500 characters.");
  // The trail is kept and cannot be changed: a customer's data written into it could never be erased.
  if (scrubPersonalData(reason) !== reason)
    throw new UsageError("--reason must not hold a CPF, phone or e-mail: give the request's ticket instead.");
  return reason;
}

/** Who sold it, as `find` lists it: "ana@example.com", "ana@example.com via crm", "integration crm". */
function seller({ agent, integration }: CustomerSale): string {
  if (!agent) return `integration ${integration?.name ?? "?"}`;
  return integration ? `${agent.email} via ${integration.name}` : agent.email;
}

function describe(found: CustomerSale, config: Config): string {
  const { sale } = found;
  const customer = sale.personalDataErasure
    ? ERASURE_LABELS[sale.personalDataErasure]
    : `${sale.request.customerName}${sale.erasureRequestedAt ? " (erasure requested: erased once closed)" : ""}`;
  return [
    formatProtocol(sale.protocol),
    formatDateTime(sale.createdAt, config.timeZone, "minutes"),
    STATUS_LABELS[sale.status],
    planName(config.plans, sale.request.planId),
    seller(found),
    customer,
  ].join("  ");
}

/** A customer's sales as the access request returns them: every stored column but the ones derived for lookups. */
function exported({ sale, agent, integration, settler }: CustomerSale) {
  const {
    customerDocumentDigest: _digest,
    customerNameFolded: _folded,
    agentId: _agent,
    integrationId: _integration,
    ...held
  } = sale;
  return { ...held, agent, integration, settler: settler?.id ? settler : null };
}

/** The erasure stands when only the statistics' rebuild after it failed: a refusal to act on, saying so. */
async function erasing<T>(erasure: Promise<T>): Promise<T> {
  try {
    return await erasure;
  } catch (error) {
    if (error instanceof StatisticsNotRebuiltError) throw new CommandError(error.message);
    throw error;
  }
}

async function run(command: string, args: string[], { db, config, operator }: CliContext): Promise<string> {
  const { values } = parseArgs({
    args,
    options: { cpf: { type: "string" }, "cpf-stdin": { type: "boolean" }, reason: { type: "string" } },
    strict: true,
  });
  const customer = () => {
    const cpf = requireCpf(values);
    return { cpf, digest: customerDocumentDigest(cpf, customerDigestKey(resolveAuthSecret(config))) };
  };

  /** A customer's sales, read for `action` and recorded as read (which sales, never the CPF). */
  const readCustomer = async (action: "customer.found" | "customer.exported") => {
    const { cpf, digest } = customer();
    const reason = requireReason(values.reason);
    const found = await customerSales(await db(), { cpf, digest });
    await recordAuditEvent(await db(), {
      action,
      ...operator,
      reason,
      details: { sales: found.map(({ sale }) => sale.protocol) },
    });
    return found;
  };

  switch (command) {
    case "find": {
      const found = await readCustomer("customer.found");
      if (found.length === 0) return "No sale holds this CPF.";
      return [
        `${found.length} sale${found.length === 1 ? "" : "s"}:`,
        ...found.map((row) => describe(row, config)),
      ].join("\n");
    }
    case "export": {
      const found = await readCustomer("customer.exported");
      return JSON.stringify({ exportedAt: new Date().toISOString(), sales: found.map(exported) }, null, 2);
    }
    case "erase": {
      const { cpf, digest } = customer();
      const reason = requireReason(values.reason);
      const { erased, waiting } = await erasing(
        eraseCustomer(await db(), { cpf, digest, audit: { ...operator, reason } }),
      );
      if (erased.length + waiting.length === 0) return "No sale holds this CPF: nothing to erase.";
      const lines = [`Erased ${erased.length} sale${erased.length === 1 ? "" : "s"}.`];
      if (waiting.length > 0) {
        lines.push(
          `${waiting.length} open (${waiting.map(formatProtocol).join(", ")}) keep their data until a ` +
            "supervisor settles them; they are erased then.",
        );
      }
      return lines.join("\n");
    }
    case "purge": {
      if (values.cpf !== undefined || values["cpf-stdin"])
        throw new UsageError("purge erases by age, not by CPF: use erase for one customer.");
      const reason = values.reason === undefined ? undefined : requireReason(values.reason);
      const result = await erasing(
        runRetention(await db(), {
          retentionDays: config.customerDataRetentionDays,
          actor: operator,
          reason,
          statistics: "always",
        }),
      );
      if (!result.ran)
        throw new CommandError(
          "Retention is running elsewhere (another instance) right now: nothing done here.",
        );
      const days = config.customerDataRetentionDays;
      return [
        days === null
          ? "Retention is off (CUSTOMER_DATA_RETENTION_DAYS=0): no sale expires."
          : `Erased ${result.expired} sale${result.expired === 1 ? "" : "s"} older than ${days} days.`,
        `Erased ${result.requested} sale${result.requested === 1 ? "" : "s"} whose customer had asked.`,
      ].join("\n");
    }
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

await runCli(USAGE, run);
