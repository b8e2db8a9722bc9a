import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIRequestContext } from "@playwright/test";
import { freePort } from "../bench/lib/processes";
import { formatCpf, formatPhone } from "../lib/format";
import { expect, test } from "./fixtures";
import { operatorTool } from "./support/agents-cli";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { DEMO_AGENT } from "./support/environment";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./support/otlp-receiver";
import { apiSale, sandboxControl } from "./support/sandbox";
import { signedInRequest } from "./support/sign-in-over-http";

// An app instance exporting its traces to a local OTLP/HTTP receiver, as it would to an operator's collector.
test.describe.configure({ mode: "serial" });

let receiver: OtlpReceiver;
let app: AppInstance;
let agent: APIRequestContext;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  receiver = await startOtlpReceiver();
  app = await startAppInstance(
    await freePort(),
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "200", OTEL_SERVICE_NAME: "" },
    { host: "127.0.0.1" },
  );
  agent = await signedInRequest(app.url);
});

test.afterAll(async () => {
  await agent?.dispose();
  await app?.stop();
  await receiver?.close();
});

test.beforeEach(async () => {
  await sandboxControl("POST", "reset");
});

const SALE_SPANS = [
  "sale.submit",
  "sale.session",
  "sale.validate",
  "ledger.claim",
  "partner_api.token",
  "partner_api.sale_request",
  "ledger.record_outcome",
];

/** The spans of the trace holding `submissionId`'s sale.submit span, once the receiver has them all. */
async function traceOf(submissionId: string): Promise<ReceivedSpan[]> {
  let spans: ReceivedSpan[] = [];
  await expect
    .poll(
      () => {
        const submit = receiver
          .spans()
          .find(
            (span) =>
              span.name === "sale.submit" && span.attributes["partner_sales.submission_id"] === submissionId,
          );
        spans = submit ? receiver.spans().filter((span) => span.traceId === submit.traceId) : [];
        return SALE_SPANS.filter((name) => !spans.some((span) => span.name === name));
      },
      { message: `the spans of ${submissionId}'s sale`, timeout: 30_000 },
    )
    .toEqual([]);
  return spans;
}

/** Whether `span` sits under a span named `ancestor` in its trace. */
function under(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: string): boolean {
  for (let parent = span.parentSpanId; parent;) {
    const found = spans.find((candidate) => candidate.spanId === parent);
    if (!found) return false;
    if (found.name === ancestor) return true;
    parent = found.parentSpanId;
  }
  return false;
}

test("each webhook attempt is a span in the trace of the sale it tells of", async () => {
  let delivered = 0;
  const partner = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      delivered += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => partner.listen(0, "127.0.0.1", resolve));
  const env = { DATA_DIR: app.dataDir };
  const added = await operatorTool(
    "webhooks",
    [
      "add",
      "--url",
      `http://127.0.0.1:${(partner.address() as AddressInfo).port}/`,
      "--events",
      "sale.accepted",
    ],
    env,
  );
  expect(added.status, added.stderr).toBe(0);
  try {
    const key = randomUUID();
    const answer = await agent.post("/api/sales", { data: apiSale(), headers: { "Idempotency-Key": key } });
    expect(answer.status()).toBe(201);
    const spans = await traceOf(key);
    let deliver: ReceivedSpan | undefined;
    await expect
      .poll(
        () =>
          (deliver = receiver
            .spans()
            .find((span) => span.name === "webhook.deliver" && span.traceId === spans[0]!.traceId)),
        { timeout: 30_000 },
      )
      .toBeDefined();
    expect(delivered).toBe(1);
    expect(deliver!.attributes).toMatchObject({
      "partner_sales.webhook.event": "sale.accepted",
      "partner_sales.webhook.attempt": 1,
      "partner_sales.submission_id": key,
      "http.response.status_code": 204,
    });
    expect(under([...spans, deliver!], deliver!, "sale.submit")).toBe(true);
  } finally {
    const id = /Added ([0-9a-f-]{36})/.exec(added.stdout)![1]!;
    await operatorTool("webhooks", ["remove", "--id", id], env);
    partner.close();
  }
});

test("one trace per sale with the session check, validation, ledger writes, token and provider call; no customer data", async () => {
  const customers = [
    apiSale({ customerName: "Graça Quintela" }),
    apiSale({ customerName: "Otávio Brandão" }),
  ];
  const keys = [randomUUID(), randomUUID()];
  // The instance got its token when it started: revoked, the first sale's trace shows the provider's 401, the
  // exchange for a new token and the call again.
  await sandboxControl("POST", "tokens/revoke");
  for (const [index, sale] of customers.entries()) {
    const answer = await agent.post("/api/sales", {
      data: sale,
      headers: { "Idempotency-Key": keys[index]! },
    });
    expect(answer.status()).toBe(201);
  }
  // A history search by CPF: its query string is a customer's data, and Next.js's spans carry request URLs.
  const search = await agent.get(
    `/sales?q=${encodeURIComponent(formatCpf(String(customers[0]!.customerDocument)))}`,
  );
  expect(search.status()).toBe(200);

  const traces = [await traceOf(keys[0]!), await traceOf(keys[1]!)];
  expect(traces[0]![0]!.traceId).not.toBe(traces[1]![0]!.traceId);
  for (const [index, spans] of traces.entries()) {
    expect(spans.filter((span) => span.name === "sale.submit")).toHaveLength(1);
    for (const name of SALE_SPANS.slice(1)) {
      const span = spans.find((candidate) => candidate.name === name)!;
      expect(under(spans, span, "sale.submit"), `${name} under sale.submit`).toBe(true);
    }
    const submit = spans.find((span) => span.name === "sale.submit")!;
    expect(submit.attributes).toMatchObject({
      "partner_sales.outcome": "accepted",
      "partner_sales.channel": "api",
    });
    // Inside the request's own span, which Next.js makes.
    expect(submit.parentSpanId, `sale ${index + 1} inside its request`).toBeDefined();
    expect(spans.find((span) => span.name === "ledger.record_outcome")!.attributes).toMatchObject({
      "partner_sales.submission_id": keys[index],
      "partner_sales.status": "accepted",
    });
    const calls = spans.filter((span) => span.name === "partner_api.sale_request");
    expect(calls.map((span) => span.attributes["http.response.status_code"])).toEqual(
      index === 0 ? [401, 200] : [200],
    );
  }
  expect(traces[0]!.filter((span) => span.name === "partner_api.token_exchange")).toHaveLength(1);
  expect(traces[1]!.filter((span) => span.name === "partner_api.token_exchange")).toHaveLength(0);

  // The search's own span, not "/api/sales" of the sales before it: only then has everything arrived to search.
  const isSearch = (span: ReceivedSpan) =>
    [span.name, ...Object.values(span.attributes)].some(
      (value) => typeof value === "string" && /(^|\s)\/sales(\?|\s|$)/.test(value),
    );
  await expect.poll(() => receiver.spans().some(isSearch), { timeout: 30_000 }).toBe(true);
  const everything = receiver.raw();
  for (const sale of customers) {
    const cpf = String(sale.customerDocument);
    for (const value of [cpf, formatCpf(cpf), String(sale.customerName), String(sale.customerEmail)]) {
      expect(everything).not.toContain(value);
    }
    expect(everything).not.toContain(String(sale.customerPhone));
    expect(everything).not.toContain(formatPhone(String(sale.customerPhone)));
  }
  expect(everything).not.toContain(DEMO_AGENT.email);
  expect(everything).not.toContain("sandbox-secret");
});
