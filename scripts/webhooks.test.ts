import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { asc, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findWebhookEndpoints } from "@/lib/db/queries/webhooks";
import { auditEvents } from "@/lib/db/schema";
import { signingSecrets } from "@/lib/webhooks/secrets";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";

const AUTH_SECRET = "w".repeat(40);
const LIVE = {
  PARTNER_API_BASE_URL: "https://api.provider.example/",
  PARTNER_CLIENT_ID: "partner-a",
  PARTNER_CLIENT_SECRET: "s3cr3t-value",
  AUTH_URL: "https://vendas.partner.example",
};

const idIn = (stdout: string) => /Added ([0-9a-f-]{36})/.exec(stdout)?.[1];
const secretIn = (stdout: string) => /Signing secret: (whsec_\S+)/.exec(stdout)?.[1];

describe.each(testDatabases)("webhooks CLI on $name, while the app holds the database", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let env: Record<string, string>;
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runTool("webhooks", args, { ...env, ...extra });

  beforeAll(async () => {
    handle = await open();
    env = { DATA_DIR: handle.dataDir, DATABASE_URL: handle.databaseUrl ?? "", AUTH_SECRET };
  });
  afterAll(() => handle.close());

  // One endpoint through its life, a test per step; each step a few runs of the CLI (seconds each on a busy
  // machine), as an operator types them.
  let id = "";
  let secret = "";
  let fresh = "";

  it("adds an endpoint: its secret shown once, kept sealed, never in the log", async () => {
    const added = await cli([
      "add",
      "--url",
      "http://127.0.0.1:4999/hooks",
      "--events",
      "sale.accepted,sale.settled",
    ]);
    expect(added.status, added.stderr).toBe(0);
    id = idIn(added.stdout)!;
    secret = secretIn(added.stdout)!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const [stored] = await findWebhookEndpoints(handle.db, [id]);
    expect(stored).toMatchObject({ events: ["sale.accepted", "sale.settled"], includeCustomer: false });
    // Sealed at rest: the row does not hold the secret, and only this deployment's AUTH_SECRET opens it.
    expect(JSON.stringify(stored)).not.toContain(secret.slice("whsec_".length));
    expect(signingSecrets(stored!, AUTH_SECRET, new Date())).toEqual([secret]);
    expect(signingSecrets(stored!, "x".repeat(40), new Date())).toEqual([]);
    expect(added.stderr).not.toContain(secret);
  });

  it("rotates its secret: the old one signs beside the new during the overlap", async () => {
    const rotated = await cli(["rotate-secret", "--id", id, "--overlap", "2h"]);
    expect(rotated.status, rotated.stderr).toBe(0);
    fresh = secretIn(rotated.stdout)!;
    expect(fresh).not.toBe(secret);
    const [stored] = await findWebhookEndpoints(handle.db, [id]);
    expect(signingSecrets(stored!, AUTH_SECRET, new Date())).toEqual([fresh, secret]);
    const listed = await cli(["list"]);
    expect(listed.stdout).toContain(`${id}  http://127.0.0.1:4999/hooks`);
    expect(listed.stdout).toMatch(/enabled; events sale\.accepted,sale\.settled/);
    expect(listed.stdout).toMatch(/previous secret signs until \S+Z/);
    expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).not.toContain(fresh);
  });

  it("disables and enables it", async () => {
    expect((await cli(["disable", "--id", id])).stdout).toMatch(/^Disabled /);
    expect((await cli(["list"])).stdout).toMatch(/disabled \S+Z; events/);
    expect((await cli(["enable", "--id", id])).stdout).toMatch(/^Enabled /);
  });

  it("removes it, and each change is on the audit trail without a secret", async () => {
    expect((await cli(["remove", "--id", id])).stdout).toContain("Removed");
    expect((await cli(["remove", "--id", id])).status).toBe(1);
    const trail = await handle.db
      .select()
      .from(auditEvents)
      .where(sql`${auditEvents.action}::text like 'webhook.%'`)
      .orderBy(asc(auditEvents.seq));
    expect(trail.map((event) => [event.action, event.door])).toEqual([
      ["webhook.added", "cli"],
      ["webhook.secret_rotated", "cli"],
      ["webhook.disabled", "cli"],
      ["webhook.enabled", "cli"],
      ["webhook.removed", "cli"],
    ]);
    expect(JSON.stringify(trail)).not.toContain(secret.slice("whsec_".length));
    expect(JSON.stringify(trail)).not.toContain(fresh.slice("whsec_".length));
  });

  // Every address form is checked in lib/webhooks/endpoint-url.test.ts; here, that the CLI applies live mode's
  // rules and WEBHOOK_ALLOWED_NETWORKS.
  it("in live mode refuses http:// and a private address, with a usage error", async () => {
    for (const url of ["http://crm.example/hooks", "https://10.1.2.3/hooks"]) {
      const refused = await cli(["add", "--url", url, "--events", "all"], LIVE);
      expect(refused.status, url).toBe(2);
      expect(refused.stderr, url).toMatch(/--url (must be https|points at 10\.1\.2\.3)/);
    }
  });

  it("in live mode takes a private address in a network the operator lists", async () => {
    const onPremises = await cli(["add", "--url", "https://10.1.2.3/hooks", "--events", "all"], {
      ...LIVE,
      WEBHOOK_ALLOWED_NETWORKS: "10.1.0.0/16",
    });
    expect(onPremises.status, onPremises.stderr).toBe(0);
    expect(
      (await cli(["add", "--url", "https://crm.example/hooks", "--events", "sale.bogus"], LIVE)).stderr,
    ).toContain("Unknown event sale.bogus");
  });
});

describe("webhooks listen", () => {
  it("verifies what is signed with its secret, prints it, and refuses the rest", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const secret = `whsec_${Buffer.from("k".repeat(32)).toString("base64")}`;
    const child = spawn(
      join(import.meta.dirname, "../node_modules/.bin/tsx"),
      [
        "--conditions=react-server",
        "scripts/webhooks.ts",
        "listen",
        "--port",
        String(port),
        "--secret",
        secret,
      ],
      {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, PARTNER_API_BASE_URL: "", DATABASE_URL: "" },
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      while (!stdout.includes("Listening on")) {
        if (child.exitCode !== null) throw new Error(`listen exited: ${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const body = JSON.stringify({ type: "sale.accepted", data: { submissionId: "x" } });
      const timestamp = new Date();
      const headers = {
        "content-type": "application/json",
        "webhook-id": "msg_1",
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign("msg_1", timestamp, body),
      };
      const url = `http://127.0.0.1:${port}/`;
      expect((await fetch(url, { method: "POST", headers, body })).status).toBe(204);
      const forged = {
        ...headers,
        "webhook-signature": new Webhook(`whsec_${Buffer.from("f".repeat(32)).toString("base64")}`).sign(
          "msg_1",
          timestamp,
          body,
        ),
      };
      expect((await fetch(url, { method: "POST", headers: forged, body })).status).toBe(400);
      expect((await fetch(url, { method: "POST", headers, body: `${body} ` })).status).toBe(400);
    } finally {
      child.kill("SIGINT");
    }
    expect(await closed).toBe(0);
    const lines = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { verified: boolean; id?: string });
    expect(lines.map((line) => line.verified)).toEqual([true, false, false]);
    expect(lines[0]).toMatchObject({ id: "msg_1", event: { type: "sale.accepted" } });
  });
});
