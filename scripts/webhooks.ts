import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { Webhook } from "standardwebhooks";
import { resolveAuthSecret } from "../lib/auth/secret";
import {
  addWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  findWebhookEndpoints,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  replayWebhookEvents,
  rotateWebhookSecret,
  type EndpointSummary,
} from "../lib/db/queries/webhooks";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../lib/db/schema";
import { checkEndpointUrl } from "../lib/webhooks/endpoint-url";
import { generateWebhookSecret, sealWebhookSecret } from "../lib/webhooks/secrets";
import { CommandError, duration, runCli, UsageError, type CliContext } from "./cli";

const USAGE = `Manage the webhook endpoints that hear every sale's outcome (docs/api-and-webhooks.md: Webhooks).

  npm run webhooks -- add --url https://crm.example/hooks --events E1,E2|all [--include-customer]
  npm run webhooks -- list
  npm run webhooks -- disable --id ID
  npm run webhooks -- enable --id ID
  npm run webhooks -- rotate-secret --id ID [--overlap 24h]
  npm run webhooks -- remove --id ID
  npm run webhooks -- replay (--event EVENT_ID | --since 2026-11-28T00:00:00Z) [--id ID]
  npm run webhooks -- listen [--port 4100] --secret whsec_…

Events: ${WEBHOOK_EVENT_TYPES.join(", ")}.
add and rotate-secret print the endpoint's signing secret once (Standard Webhooks, whsec_…); after rotate-secret the
old one still signs beside the new one for --overlap (default 24h), so the receiver can switch without a gap.
--include-customer adds the customer's data to payloads (LGPD: only where the receiver needs it).
Live mode delivers only to https:// URLs on public addresses; a private network (an on-premises CRM) must be listed in
WEBHOOK_ALLOWED_NETWORKS. listen runs a local receiver that verifies and prints each event, for developers.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function requireId(option: string, value: string | undefined): string {
  if (!value) throw new UsageError(`${option} is required (npm run webhooks -- list shows the ids).`);
  if (!UUID.test(value)) throw new UsageError(`${option} is an id as list shows it (got "${value}").`);
  return value.toLowerCase();
}

function requireEvents(value: string | undefined): WebhookEventType[] {
  if (!value)
    throw new UsageError(
      `--events is required: all, or a comma-separated list of ${WEBHOOK_EVENT_TYPES.join(", ")}.`,
    );
  if (value.trim() === "all") return [...WEBHOOK_EVENT_TYPES];
  const events = [...new Set(value.split(",").map((event) => event.trim()))].filter(Boolean);
  const unknown = events.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
  if (unknown.length > 0 || events.length === 0) {
    throw new UsageError(
      `Unknown event ${unknown.join(", ")}: the events are ${WEBHOOK_EVENT_TYPES.join(", ")}.`,
    );
  }
  return events as WebhookEventType[];
}

/** The URL as deliveries will need it: refused here already when no delivery could ever be made to it. */
function requireUrl(value: string | undefined, { config }: CliContext): string {
  const checked = checkEndpointUrl(value, config.webhooks);
  if ("problem" in checked) throw new UsageError(checked.problem);
  return checked.url;
}

const when = (date: Date | null) => (date ? date.toISOString().replace(/\.\d{3}Z$/, "Z") : "-");

function describe(endpoint: EndpointSummary): string {
  const state = endpoint.disabledAt
    ? `disabled ${when(endpoint.disabledAt)}`
    : endpoint.failingSince
      ? `FAILING since ${when(endpoint.failingSince)}`
      : "enabled";
  return [
    `${endpoint.id}  ${endpoint.url}`,
    `  ${state}; events ${endpoint.events.join(",")}${endpoint.includeCustomer ? "; with customer data" : ""}`,
    `  queue: ${endpoint.pending} pending (oldest ${when(endpoint.oldestPendingAt)}), ${endpoint.dead} given up`,
    `  last attempt ${when(endpoint.lastAttemptAt)}: ${endpoint.lastError ?? (endpoint.lastStatusCode ? `HTTP ${endpoint.lastStatusCode}` : "-")}` +
      (endpoint.previousSecretUntil && endpoint.previousSecretUntil > new Date()
        ? `; previous secret signs until ${when(endpoint.previousSecretUntil)}`
        : ""),
  ].join("\n");
}

const shownOnce = (secret: string) =>
  `\nSigning secret: ${secret}\nIt is shown this once: give it to the receiver now (verify with any Standard Webhooks library).`;

async function run(command: string, args: string[], context: CliContext): Promise<string> {
  const { db, operator, config } = context;
  switch (command) {
    case "add": {
      const { values } = parseArgs({
        args,
        options: {
          url: { type: "string" },
          events: { type: "string" },
          "include-customer": { type: "boolean" },
        },
      });
      const url = requireUrl(values.url, context);
      const events = requireEvents(values.events);
      const secret = generateWebhookSecret();
      const authSecret = resolveAuthSecret(config);
      const endpoint = await addWebhookEndpoint(await db(), {
        url,
        events,
        includeCustomer: values["include-customer"] ?? false,
        sealSecret: (id) => sealWebhookSecret(secret, authSecret, id),
        actor: operator,
      });
      return `Added ${endpoint.id} → ${url} (${events.join(", ")}).${shownOnce(secret)}`;
    }
    case "list": {
      const endpoints = await listWebhookEndpoints(await db());
      return endpoints.length === 0 ? "No webhook endpoints." : endpoints.map(describe).join("\n\n");
    }
    case "disable":
    case "enable": {
      const { values } = parseArgs({ args, options: { id: { type: "string" } } });
      const id = requireId("--id", values.id);
      const change = command === "disable" ? disableWebhookEndpoint : enableWebhookEndpoint;
      const endpoint = await change(await db(), id, operator);
      if (!endpoint) throw new CommandError(`No webhook endpoint ${id}.`);
      return command === "disable"
        ? `Disabled ${id}: nothing is sent to it, and no new event is kept for it; what already waited goes when it is enabled again, and replay --since sends what it missed.`
        : `Enabled ${id}: what waited for it goes now.`;
    }
    case "rotate-secret": {
      const { values } = parseArgs({
        args,
        options: { id: { type: "string" }, overlap: { type: "string" } },
      });
      const id = requireId("--id", values.id);
      const overlapMs = duration("--overlap", values.overlap ?? "24h");
      const [endpoint] = await findWebhookEndpoints(await db(), [id]);
      if (!endpoint) throw new CommandError(`No webhook endpoint ${id}.`);
      const secret = generateWebhookSecret();
      const authSecret = resolveAuthSecret(config);
      const previousUntil = new Date(Date.now() + overlapMs);
      await rotateWebhookSecret(await db(), endpoint, {
        secretSealed: sealWebhookSecret(secret, authSecret, id),
        previousSecretSealed: endpoint.secretSealed,
        previousUntil,
        actor: operator,
      });
      return `Rotated ${id}: both secrets sign until ${when(previousUntil)}, then only the new one.${shownOnce(secret)}`;
    }
    case "remove": {
      const { values } = parseArgs({ args, options: { id: { type: "string" } } });
      const id = requireId("--id", values.id);
      const removed = await removeWebhookEndpoint(await db(), id, operator);
      if (!removed) throw new CommandError(`No webhook endpoint ${id}.`);
      return `Removed ${id} (${removed.url}) and what waited for it.`;
    }
    case "replay": {
      const { values } = parseArgs({
        args,
        options: { event: { type: "string" }, since: { type: "string" }, id: { type: "string" } },
      });
      if ((values.event === undefined) === (values.since === undefined)) {
        throw new UsageError(
          "Give --event EVENT_ID (one event) or --since TIME (everything since), not both.",
        );
      }
      const since = values.since === undefined ? undefined : new Date(values.since);
      if (since && Number.isNaN(since.getTime())) {
        throw new UsageError(
          `--since is an ISO 8601 time such as 2026-11-28T00:00:00Z (got "${values.since}").`,
        );
      }
      const count = await replayWebhookEvents(await db(), {
        eventId: values.event === undefined ? undefined : requireId("--event", values.event),
        since,
        endpointId: values.id === undefined ? undefined : requireId("--id", values.id),
        actor: operator,
      });
      return `${count} deliver${count === 1 ? "y" : "ies"} due now (same webhook-id as before: receivers deduplicate).`;
    }
    case "listen": {
      const { values } = parseArgs({
        args,
        options: { port: { type: "string" }, secret: { type: "string" } },
      });
      if (!values.secret?.startsWith("whsec_"))
        throw new UsageError("--secret is the endpoint's signing secret (whsec_…).");
      return listen(Number(values.port ?? 4100), new Webhook(values.secret));
    }
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

/** A local receiver for a partner's developers: each event verified (or refused with 400) and printed. */
function listen(port: number, verifier: Webhook): Promise<string> {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new UsageError("--port is a port number.");
  return new Promise((resolve, reject) => {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        try {
          const event = verifier.verify(body, {
            "webhook-id": String(request.headers["webhook-id"] ?? ""),
            "webhook-timestamp": String(request.headers["webhook-timestamp"] ?? ""),
            "webhook-signature": String(request.headers["webhook-signature"] ?? ""),
          });
          console.log(JSON.stringify({ verified: true, id: request.headers["webhook-id"], event }));
          response.writeHead(204).end();
        } catch (error) {
          console.log(JSON.stringify({ verified: false, reason: (error as Error).message }));
          response.writeHead(400).end();
        }
      });
    });
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => {
      console.log(
        `Listening on http://127.0.0.1:${port}/ — add it with: npm run webhooks -- add --url http://127.0.0.1:${port}/ --events all`,
      );
    });
    process.once("SIGINT", () => server.close(() => resolve("Stopped.")));
  });
}

await runCli(USAGE, run);
