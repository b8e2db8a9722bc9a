import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { resolveAuthSecret } from "../lib/auth/secret";
import { describeIntegrityProblem, verifyDisputePack } from "../lib/sales/evidence-integrity";
import { evidenceSigningKey } from "../lib/sales/evidence-key";
import { CommandError, runCli, UsageError, type CliContext } from "./cli";

const USAGE = `The evidence of scripted sales: what was offered and what the customer confirmed.

  npm run evidence -- verify <pack.json> [--jwks FILE] [--offline]

verify: checks a dispute pack downloaded from a sale's page: its signature (this app's key, derived from
AUTH_SECRET, or a key of --jwks FILE, a copy of /api/v1/evidence-keys), that its evidence hashes to its
evidenceHash, that the audit trail's sale.evidence_recorded row carries that hash and that each trail row of the
pack hashes and links as the chain does; then, unless --offline, against the database: the sale's evidence row
still hashes to what the trail recorded, and the pack's trail rows are in the chain unchanged. Each failure is
named; exit 0 when everything holds, 1 otherwise.`;

const chainRow = z.object({
  seq: z.number().int().positive(),
  at: z.string(),
  action: z.string(),
  actor: z.string(),
  door: z.string().nullable(),
  agentId: z.string().nullable(),
  protocol: z.string().nullable(),
  reason: z.string().nullable(),
  details: z.string(),
  prevHash: z.string(),
  hash: z.string(),
});

const signedPack = z.object({
  pack: z.looseObject({
    sale: z.looseObject({ protocol: z.string() }),
    evidence: z.object({
      submissionId: z.string(),
      scriptVersion: z.string(),
      scriptHash: z.string(),
      scriptText: z.string(),
      confirmations: z.array(
        z.object({ id: z.string(), text: z.string(), required: z.boolean(), confirmedAt: z.string() }),
      ),
      recordingIdDigest: z.string().nullable(),
      agentId: z.string().nullable(),
      door: z.string(),
      recordedAt: z.iso.datetime(),
      recordingId: z.string().nullable(),
      evidenceHash: z.string(),
    }),
    auditTrail: z.array(chainRow),
  }),
  signature: z.string(),
});

function readPack(path: string) {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CommandError(`${path} is not JSON: not a dispute pack.`);
  }
  const parsed = signedPack.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CommandError(
      `${path} is not a dispute pack: ${issue.path.join(".") || "its top level"}: ${issue.message}.`,
    );
  }
  // The whole pack as read, not only what the schema names: the signature covers every field.
  return { ...parsed.data, pack: (json as { pack: typeof parsed.data.pack }).pack };
}

function readKeys(path: string) {
  try {
    const jwks = JSON.parse(readFileSync(path, "utf8")) as { keys?: unknown };
    if (!Array.isArray(jwks.keys)) throw new Error("no keys");
    return jwks.keys as { kid?: string }[];
  } catch {
    throw new UsageError(`--jwks: ${path} is not a JWKS ({"keys": [...]}).`);
  }
}

async function verify(args: string[], { db, config }: CliContext): Promise<string> {
  const { values, positionals } = parseArgs({
    args,
    options: { jwks: { type: "string" }, offline: { type: "boolean" } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError("verify takes one file: the dispute pack.");
  const signed = readPack(positionals[0]!);
  const keys = [
    (await evidenceSigningKey(resolveAuthSecret(config))).publicJwk,
    ...(values.jwks ? readKeys(values.jwks) : []),
  ];
  const result = await verifyDisputePack(signed, keys, values.offline ? null : await db());
  const protocol = signed.pack.sale.protocol;
  if (result.problems.length > 0) {
    throw new CommandError(
      `Dispute pack of sale ${protocol} does not verify:\n${result.problems
        .map((problem) => `- ${describeIntegrityProblem(problem, protocol)}`)
        .join("\n")}`,
    );
  }
  return (
    `Dispute pack of sale ${protocol} verified: signature, evidence hash ${signed.pack.evidence.evidenceHash} ` +
    `recorded by audit row #${result.recordedSeq}, ${result.auditRows} trail rows` +
    (values.offline ? " (offline: the database was not read)." : "; the database holds them unchanged.")
  );
}

async function run(command: string, args: string[], context: CliContext): Promise<string> {
  if (command === "verify") return verify(args, context);
  throw new UsageError(`Unknown command "${command}".`);
}

await runCli(USAGE, run);
