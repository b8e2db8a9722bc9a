import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { freePort } from "../bench/lib/processes";
import { createEmptyDatabase, queryOnce, startTestPostgres } from "../scripts/test-postgres";
import { expect, test } from "./fixtures";
import { SalePage } from "./pages/sale-page";
import { signInElsewhere } from "./pages/sign-in-page";
import { apiKeyFromCli, operatorTool } from "./support/agents-cli";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { DEMO_AGENT } from "./support/environment";
import { scrape } from "./support/metrics";
import { apiSale, formatCpf, freshCpf, sandboxControl, sandboxStats } from "./support/sandbox";
import { sellAgain, sellOverApi } from "./support/sell";

// A partner's receiver on this host, verifying every delivery with the standardwebhooks library as docs/api-and-webhooks.md tells
// a partner to, through the app's real dispatcher: the shared e2e app for the outcomes, instances of their own for
// the crashes and for several instances on one PostgreSQL.

interface Delivery {
  id: string;
  type: string;
  data: Record<string, unknown>;
  /** Which of the receiver's secrets verified it (a rotation's overlap: both). */
  verifiedBy: string[];
}

/**
 * Verifies each request with every secret it knows (400 when none does) and records it. `holding`: requests are
 * recorded and then left unanswered until `answer()`. Stops and starts again on the same port.
 */
class Receiver {
  readonly received: Delivery[] = [];
  secrets: string[] = [];
  holding = false;
  private held: ServerResponse[] = [];
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<this> {
    this.server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const headers = {
          "webhook-id": String(request.headers["webhook-id"]),
          "webhook-timestamp": String(request.headers["webhook-timestamp"]),
          "webhook-signature": String(request.headers["webhook-signature"]),
        };
        const verifiedBy = this.secrets.filter((secret) => {
          try {
            new Webhook(secret).verify(raw, headers);
            return true;
          } catch {
            return false;
          }
        });
        if (verifiedBy.length === 0) return response.writeHead(400).end();
        const body = JSON.parse(raw) as { type: string; data: Record<string, unknown> };
        this.received.push({ id: headers["webhook-id"], type: body.type, data: body.data, verifiedBy });
        if (this.holding) this.held.push(response);
        else response.writeHead(204).end();
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  get url() {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Answers what it held, and every request from now on. */
  answer() {
    this.holding = false;
    for (const response of this.held.splice(0)) if (!response.destroyed) response.writeHead(204).end();
  }

  async stop() {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  ofSale(submissionId: string) {
    return this.received.filter((delivery) => delivery.data.submissionId === submissionId);
  }

  typesOf(submissionId: string) {
    return this.ofSale(submissionId).map((delivery) => delivery.type);
  }

  /** webhook-ids that arrived more than once. */
  duplicates() {
    const seen = new Map<string, number>();
    for (const { id } of this.received) seen.set(id, (seen.get(id) ?? 0) + 1);
    return [...seen].filter(([, count]) => count > 1).map(([id]) => id);
  }
}

/** `npm run webhooks -- add` for every event; the id and the secret it printed once. */
async function addEndpoint(url: string, env: Record<string, string> = {}) {
  const added = await operatorTool("webhooks", ["add", "--url", url, "--events", "all"], env);
  expect(added.status, added.stderr).toBe(0);
  return {
    id: /Added ([0-9a-f-]{36})/.exec(added.stdout)![1]!,
    secret: /Signing secret: (whsec_\S+)/.exec(added.stdout)![1]!,
  };
}

/** A figure the acceptance asks to count and report: in the test's annotations and on the run's output. */
function report(annotation: { type: string; description: string }) {
  test.info().annotations.push(annotation);
  console.log(`${annotation.type}: ${annotation.description}`);
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** A sale through /api/v1 with an integration's key: its outcome as answered. */
async function sellWithKey(
  client: APIRequestContext,
  key: string,
  data: Record<string, unknown> = apiSale(),
  submissionId: string = randomUUID(),
) {
  const answer = await client.post("/api/v1/sales", {
    data,
    headers: { ...bearer(key), "Idempotency-Key": submissionId },
  });
  const body = (await answer.json()) as { status: string; protocol: string };
  return { submissionId, status: body.status, protocol: body.protocol, httpStatus: answer.status() };
}

test("every outcome of the form and the API, a settlement and an erasure reach the receiver, signed, in order", async ({
  browser,
  signedIn: page,
  saleForm,
  request,
}) => {
  test.setTimeout(240_000);
  const partner = await new Receiver().start();
  const endpoint = await addEndpoint(partner.url);
  partner.secrets = [endpoint.secret];
  const key = await apiKeyFromCli([
    "create",
    "--name",
    `crm-wh-${randomUUID().slice(0, 6)}`,
    "--scopes",
    "sales:write",
  ]);
  try {
    // The form: accepted, the same customer refused a second time, an unknown answer, nothing sent.
    const formCustomer = freshCpf();
    const bySaleForm = async (expected: string, fault?: () => Promise<unknown>) => {
      await saleForm.goto();
      const submissionId = await page.locator('input[name="submissionId"]').inputValue();
      await fault?.();
      await saleForm.fill({
        cpf: formatCpf(formCustomer),
        name: "Joana Prado",
        email: "joana@example.com",
        phone: "(11) 98765-4321",
        plan: "Plano Família",
        externalId: "CRM-WH-FORM",
      });
      await saleForm.submit().click();
      // The customer has this plan already (the first sale): the agent is asked, and sends anyway.
      if (expected !== "sale.accepted") await saleForm.sendAnyway().click();
      await expect.poll(() => partner.typesOf(submissionId), { timeout: 30_000 }).toEqual([expected]);
      return submissionId;
    };
    const formAccepted = await bySaleForm("sale.accepted");
    const formRejected = await bySaleForm("sale.rejected");
    const formUnknown = await bySaleForm("sale.unknown", () =>
      sandboxControl("POST", "faults", { kind: "503" }),
    );

    // The integrations' API, the same outcomes.
    const apiCustomer = freshCpf();
    const byApi = async (expected: string, fault?: () => Promise<unknown>, customer = apiCustomer) => {
      await fault?.();
      const data = apiSale({ customerDocument: customer, externalId: "CRM-WH-API" });
      const sale = { ...(await sellWithKey(request, key, data)), data };
      expect(sale.status).toBe(expected.replace("sale.", ""));
      await expect.poll(() => partner.typesOf(sale.submissionId), { timeout: 30_000 }).toEqual([expected]);
      return sale;
    };
    await byApi("sale.accepted");
    await byApi("sale.rejected");
    await byApi("sale.unknown", () => sandboxControl("POST", "faults", { kind: "503" }));
    const noToken = async () => {
      await sandboxControl("POST", "tokens/revoke");
      await sandboxControl("POST", "faults", { kind: "503", target: "token" });
    };
    const apiFailed = await byApi("sale.failed", noToken, freshCpf());
    // Sent again under its Idempotency-Key (a retry skips the exchange's back-off): accepted, the second event.
    const again = await sellWithKey(request, key, apiFailed.data, apiFailed.submissionId);
    expect(again.status).toBe("accepted");
    await expect
      .poll(() => partner.typesOf(apiFailed.submissionId), { timeout: 30_000 })
      .toEqual(["sale.failed", "sale.accepted"]);
    const formFailed = await bySaleForm("sale.failed", noToken);

    // A supervisor settles the form's unknown sale: its settlement comes after its unknown, with who and when.
    const desk = await signInElsewhere(browser, "supervisor@demo.local", DEMO_AGENT.password);
    const salePage = new SalePage(desk);
    await salePage.goto(formUnknown);
    await salePage.choice("Foi registrada").click();
    await salePage.confirm().click();
    await expect
      .poll(() => partner.typesOf(formUnknown), { timeout: 30_000 })
      .toEqual(["sale.unknown", "sale.settled"]);
    const settled = partner.ofSale(formUnknown)[1]!;
    expect(settled.data).toMatchObject({
      status: "accepted",
      settlement: { resolution: "registered", by: { name: "Supervisora Demo" }, at: expect.any(String) },
    });

    // The form's customer asks for erasure: one event naming their sales, nothing personal.
    const erased = await operatorTool("customers", [
      "erase",
      "--cpf",
      formatCpf(formCustomer),
      "--reason",
      "e2e: pedido do titular",
    ]);
    expect(erased.status, erased.stderr).toBe(0);
    await expect
      .poll(() => partner.received.filter((delivery) => delivery.type === "customer.erased").length, {
        timeout: 30_000,
      })
      .toBe(1);
    const erasure = partner.received.find((delivery) => delivery.type === "customer.erased")!;
    const erasedSales = erasure.data.sales as { submissionId: string; externalId: string | null }[];
    expect(erasedSales.map((sale) => sale.submissionId).sort()).toEqual(
      [formAccepted, formRejected, formUnknown, formFailed].sort(),
    );
    for (const sale of erasedSales) {
      expect(Object.keys(sale).sort()).toEqual(["externalId", "protocol", "submissionId"]);
      expect(sale.externalId).toBe("CRM-WH-FORM");
    }

    // Least data: no customer fields to an endpoint not configured for them; every delivery once, verified.
    for (const delivery of partner.received) {
      expect(delivery.data).not.toHaveProperty("customer");
      expect(JSON.stringify(delivery.data)).not.toContain(formCustomer);
      expect(JSON.stringify(delivery.data)).not.toContain(apiCustomer);
      expect(delivery.verifiedBy).toEqual([endpoint.secret]);
    }
    expect(partner.duplicates()).toEqual([]);

    // Rotation: during the overlap each delivery verifies with the old secret and with the new one.
    const rotated = await operatorTool("webhooks", ["rotate-secret", "--id", endpoint.id, "--overlap", "1h"]);
    expect(rotated.status, rotated.stderr).toBe(0);
    const fresh = /Signing secret: (whsec_\S+)/.exec(rotated.stdout)![1]!;
    partner.secrets = [endpoint.secret, fresh];
    const afterRotation = await sellOverApi(page);
    await expect.poll(() => partner.ofSale(afterRotation.submissionId).length, { timeout: 30_000 }).toBe(1);
    expect(partner.ofSale(afterRotation.submissionId)[0]!.verifiedBy).toEqual([endpoint.secret, fresh]);
    // A receiver that only knows a secret of its own verifies nothing: the signature is the endpoint's.
    partner.secrets = [`whsec_${Buffer.from("x".repeat(32)).toString("base64")}`];
    const stranger = await sellOverApi(page);
    await expect
      .poll(async () => (await operatorTool("webhooks", ["list"])).stdout, { timeout: 30_000 })
      .toContain("status_400");
    expect(partner.ofSale(stranger.submissionId)).toEqual([]);
  } finally {
    await operatorTool("webhooks", ["remove", "--id", endpoint.id]);
    await partner.stop();
  }
});

test("a receiver down for a while gets every event once it is back, in order per sale", async ({
  signedIn: page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const deliveries = (series: Map<string, number>, event: string, result: string) =>
    series.get(`partner_sales_webhook_deliveries_total{event="${event}",result="${result}"}`) ?? 0;
  const before = await scrape(baseURL!);
  const partner = await new Receiver().start();
  const endpoint = await addEndpoint(partner.url);
  partner.secrets = [endpoint.secret];
  await partner.stop();
  try {
    // Nothing sent (no token to be had), then sent again under the same key and accepted: two events, in order.
    await sandboxControl("POST", "tokens/revoke");
    await sandboxControl("POST", "faults", { kind: "503", target: "token" });
    const failed = await sellOverApi(page);
    expect(failed.status).toBe("failed");
    const retried = await sellAgain(page, failed);
    expect(retried.status).toBe("accepted");
    const other = await sellOverApi(page);
    // The dispatcher tried, and was refused the connection: the events wait for their next attempt.
    await expect
      .poll(async () => (await operatorTool("webhooks", ["list"])).stdout, { timeout: 30_000 })
      .toMatch(/queue: 3 pending[^\n]*\n\s+last attempt \S+: connection_refused/);
    expect(partner.received).toEqual([]);

    // Back on the same address; `enable` makes what waited due now instead of at its next retry.
    await partner.start();
    const enabled = await operatorTool("webhooks", ["enable", "--id", endpoint.id]);
    expect(enabled.status, enabled.stderr).toBe(0);
    await expect
      .poll(() => partner.typesOf(failed.submissionId), { timeout: 30_000 })
      .toEqual(["sale.failed", "sale.accepted"]);
    await expect
      .poll(() => partner.typesOf(other.submissionId), { timeout: 30_000 })
      .toEqual(["sale.accepted"]);
    expect(partner.duplicates()).toEqual([]);
    // Counted by event and result: the refused attempts as retrying, then the three delivered (counted once
    // recorded, a moment after the receiver has them).
    let after = new Map<string, number>();
    const grew = (event: string, result: string) =>
      deliveries(after, event, result) - deliveries(before, event, result);
    await expect
      .poll(async () => {
        after = await scrape(baseURL!);
        return [grew("sale.failed", "delivered"), grew("sale.accepted", "delivered")];
      })
      .toEqual([1, 2]);
    expect(grew("sale.failed", "retrying") + grew("sale.accepted", "retrying")).toBeGreaterThanOrEqual(1);
    expect([...after.keys()]).toEqual(
      expect.arrayContaining([
        "partner_sales_webhook_queue_depth",
        "partner_sales_webhook_oldest_pending_seconds",
      ]),
    );
  } finally {
    await operatorTool("webhooks", ["remove", "--id", endpoint.id]);
    await partner.stop();
  }
});

test("killed (SIGKILL) with deliveries in flight and outcomes being recorded: after a restart nothing is lost", async () => {
  test.setTimeout(300_000);
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-webhooks-"));
  const env = { DATA_DIR: dataDir, WEBHOOK_TIMEOUT_SECONDS: "2" };
  let app: AppInstance | undefined = await startAppInstance(port, env, { host: "127.0.0.1" });
  const partner = await new Receiver().start();
  partner.holding = true;
  const client = await playwrightRequest.newContext({ baseURL: `http://127.0.0.1:${port}` });
  try {
    const key = await apiKeyFromCli(["create", "--name", "crm", "--scopes", "sales:write,sales:read"], env);
    const endpoint = await addEndpoint(partner.url, env);
    partner.secrets = [endpoint.secret];

    // Ten outcomes recorded, their deliveries sent and held unanswered by the receiver.
    const sold: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      const sale = await sellWithKey(client, key);
      expect(sale.status).toBe("accepted");
      sold.push(sale.submissionId);
    }
    await expect.poll(() => partner.received.length, { timeout: 30_000 }).toBe(10);
    // Five more on their way to the provider, which holds them: killed before their outcomes are recorded.
    await sandboxControl("POST", "latency", { ms: 2_500, target: "sale" });
    const before = (await sandboxStats()).saleRequests;
    const inFlight = Array.from({ length: 5 }, () => randomUUID());
    for (const submissionId of inFlight)
      void sellWithKey(client, key, apiSale(), submissionId).catch(() => null);
    await expect
      .poll(async () => (await sandboxStats()).saleRequests, { timeout: 20_000, intervals: [100] })
      .toBe(before + 5);
    app.server.child.kill("SIGKILL");
    await new Promise((resolve) => app!.server.child.once("exit", resolve));
    await app.stop();
    app = undefined;
    await sandboxControl("POST", "latency", { ms: 0, target: "sale" });
    partner.answer();

    // Restarted on the same data: the held deliveries go again once their leases end, and the interrupted sales,
    // once the sweep marks them unknown, have their event too.
    app = await startAppInstance(port, env, { host: "127.0.0.1" });
    const all = [...sold, ...inFlight];
    const statusOf = async (submissionId: string) => {
      const answer = await client.get(`/api/v1/sales/${submissionId}`, { headers: bearer(key) });
      return answer.status() === 200 ? ((await answer.json()) as { status: string }).status : "absent";
    };
    const settled = async () => {
      const statuses = await Promise.all(all.map(statusOf));
      return statuses.every((status) => status !== "pending") ? statuses : null;
    };
    await expect.poll(settled, { timeout: 120_000, intervals: [1_000] }).not.toBeNull();
    const statuses = (await settled())!;
    for (const [index, submissionId] of all.entries()) {
      if (statuses[index] === "absent") continue; // killed before its claim was written: never a sale here
      await expect
        .poll(() => partner.typesOf(submissionId).at(-1), { timeout: 60_000, message: submissionId })
        .toBe(`sale.${statuses[index]}`);
    }
    expect(statuses.slice(0, 10).every((status) => status === "accepted")).toBe(true);
    // Those whose answer was lost to the kill came twice, with the same webhook-id; no other did.
    const duplicates = partner.duplicates();
    report({
      type: "webhooks after SIGKILL",
      description: `${new Set(partner.received.map((delivery) => delivery.id)).size} events, ${duplicates.length} delivered twice (their answers lost to the kill); in-flight sales after restart: ${statuses.slice(10).join(", ")}`,
    });
    const firstTen = new Set(partner.received.slice(0, 10).map((delivery) => delivery.id));
    expect(duplicates.filter((id) => !firstTen.has(id))).toEqual([]);
  } finally {
    await sandboxControl("POST", "latency", { ms: 0, target: "sale" });
    await client.dispose();
    await app?.stop();
    await partner.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("three instances on one PostgreSQL: every event delivered, none twice", async () => {
  test.setTimeout(300_000);
  const postgres = await startTestPostgres();
  if (!postgres && process.env.CI) throw new Error("PostgreSQL is needed for this test under CI.");
  test.skip(!postgres, "PostgreSQL cannot be had here (installed by npm test as root with apt-get)");
  const url = await createEmptyDatabase(postgres!.url, "webhooks_three");
  // One deployment: one AUTH_SECRET, which seals the endpoint's signing secret for every instance to open.
  const env = { DATABASE_URL: url, AUTH_SECRET: "e2e-three-instances-".padEnd(48, "w") };
  const instances: AppInstance[] = [];
  const partner = await new Receiver().start();
  const clients: APIRequestContext[] = [];
  try {
    for (let index = 0; index < 3; index += 1) {
      instances.push(await startAppInstance(await freePort(), env, { host: "127.0.0.1" }));
    }
    const key = await apiKeyFromCli(["create", "--name", "crm", "--scopes", "sales:write"], env);
    const endpoint = await addEndpoint(partner.url, env);
    partner.secrets = [endpoint.secret];
    for (const instance of instances)
      clients.push(await playwrightRequest.newContext({ baseURL: instance.url }));

    // Sixty sales, twenty through each instance at once: each instance's dispatcher competes for every event.
    const sales = (
      await Promise.all(
        clients.map(async (client) => {
          const made = [];
          for (let index = 0; index < 20; index += 1) made.push(await sellWithKey(client, key));
          return made;
        }),
      )
    ).flat();
    expect(sales.every((sale) => sale.status === "accepted")).toBe(true);
    await expect
      .poll(() => new Set(partner.received.map((delivery) => delivery.id)).size, { timeout: 60_000 })
      .toBe(60);
    for (const sale of sales) expect(partner.typesOf(sale.submissionId)).toContain("sale.accepted");
    // Settled in the database too: nothing pending that could go again.
    await expect
      .poll(
        async () =>
          (
            await queryOnce<{ count: string }>(
              url,
              "select count(*) from webhook_deliveries where state <> 'delivered'",
            )
          )[0]!.count,
        { timeout: 30_000 },
      )
      .toBe("0");
    const holders = await queryOnce<{ leased_by: string; count: string }>(
      url,
      "select leased_by, count(*) from webhook_deliveries group by leased_by order by leased_by",
    );
    report({
      type: "webhooks on three instances",
      description: `60 events, ${partner.received.length} deliveries, ${partner.duplicates().length} twice; sent by ${holders.map((row) => row.count).join(" + ")} per instance`,
    });
    expect(partner.duplicates()).toEqual([]);
  } finally {
    for (const [index, instance] of instances.entries()) {
      await test
        .info()
        .attach(`instance ${index + 1} log`, { body: instance.log(), contentType: "text/plain" });
    }
    for (const client of clients) await client.dispose();
    await Promise.all(instances.map((instance) => instance.stop()));
    await partner.stop();
    postgres?.stop();
  }
});
