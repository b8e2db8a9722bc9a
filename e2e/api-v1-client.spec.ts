import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { expect, test } from "./fixtures";
import { apiKeyFromCli } from "./support/agents-cli";
import { E2E_PORTS } from "./support/environment";
import { apiSale, sandboxControl } from "./support/sandbox";

// A partner's program as they would write it: types generated from the app's own /api/v1/openapi.json
// (openapi-typescript), the openapi-fetch client, compiled by tsc in strict mode and run with node against the app.

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..");

const CLIENT_PROGRAM = `
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type SaleRequest = components["schemas"]["SaleRequest"];

const { BASE_URL, API_KEY, SALE } = process.env;
if (!BASE_URL || !API_KEY || !SALE) throw new Error("BASE_URL, API_KEY and SALE are needed");
const api = createClient<paths>({ baseUrl: \`\${BASE_URL}/api/v1\`, headers: { Authorization: \`Bearer \${API_KEY}\` } });

const print = (step: string, value: unknown) => console.log(JSON.stringify({ step, value }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Compiled, never run: were the generated types loose, these would compile and tsc would fail on the directives.
export function typesAreChecked(sale: SaleRequest) {
  // @ts-expect-error: the document names no such path
  void api.GET("/sale/{submissionId}", { params: { path: { submissionId: "x" } } });
  // @ts-expect-error: selling needs its Idempotency-Key
  void api.POST("/sales", { body: sale });
  // @ts-expect-error: a sale needs its customer's CPF
  const incomplete: SaleRequest = { customerName: "x", customerEmail: "x", customerPhone: "x", planId: "x" };
  void incomplete;
}

const startedAt = new Date(Date.now() - 1_000).toISOString();
const idempotencyKey = randomUUID();
const sold = await api.POST("/sales", {
  params: { header: { "Idempotency-Key": idempotencyKey } },
  body: JSON.parse(SALE) as SaleRequest,
});
if (!sold.data) throw new Error(\`POST /sales: \${sold.response.status} \${JSON.stringify(sold.error)}\`);
const { submissionId } = sold.data;
print("sold", { status: sold.response.status, location: sold.response.headers.get("location"), result: sold.data });

const again = await api.POST("/sales", {
  params: { header: { "Idempotency-Key": idempotencyKey } },
  body: JSON.parse(SALE) as SaleRequest,
});
print("sold again", { status: again.response.status, replay: again.data?.replay });

const read = await api.GET("/sales/{submissionId}", { params: { path: { submissionId } } });
if (!read.data) throw new Error(\`GET /sales/{submissionId}: \${read.response.status}\`);
print("read", read.data);

const missing = await api.GET("/sales/{submissionId}", { params: { path: { submissionId: randomUUID() } } });
print("missing", { status: missing.response.status, error: missing.error?.error });

// The feed holds back changes younger than a few seconds: poll with its cursor, a bounded number of times.
let updatedAfter = startedAt;
for (let poll = 1; poll <= 40; poll++) {
  const page = await api.GET("/sales", { params: { query: { updatedAfter, limit: 100 } } });
  if (!page.data) throw new Error(\`GET /sales: \${page.response.status} \${JSON.stringify(page.error)}\`);
  const change = page.data.sales.find((sale) => sale.submissionId === submissionId);
  if (change) {
    print("feed", { polls: poll, sale: change });
    break;
  }
  if (page.data.nextCursor === null) throw new Error("the feed's nextCursor is always set");
  updatedAfter = page.data.nextCursor;
  if (page.data.sales.length === 0) await sleep(500);
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2023", "DOM"],
    types: ["node"],
    skipLibCheck: true,
    outDir: "dist",
  },
  files: ["client.ts", "api.d.ts"],
};

const newKey = (name: string, scopes: string) =>
  apiKeyFromCli(["create", "--name", name, "--scopes", scopes]);

test("a client generated from /api/v1/openapi.json sells, reads the sale back and follows the changes feed", async ({
  request,
}, testInfo) => {
  await sandboxControl("POST", "reset");
  const published = await request.get("/api/v1/openapi.json");
  expect(published.status()).toBe(200);
  expect(published.headers()["content-type"]).toContain("application/json");
  expect(published.headers()["cache-control"]).toBe("no-cache");
  const document = (await published.json()) as { openapi: string };
  expect(document.openapi).toBe("3.1.0");

  // Generated, written and compiled where node finds this checkout's openapi-fetch (test-results/…).
  const dir = testInfo.outputPath("client");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "api.d.ts"), astToString(await openapiTS(document as never)));
  writeFileSync(join(dir, "client.ts"), CLIENT_PROGRAM);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const compiled = await run(join(ROOT, "node_modules/.bin/tsc"), ["-p", dir]).catch(
    (error: { stdout: string }) => error,
  );
  expect("code" in compiled ? compiled.stdout : "", "tsc found errors in the generated client").toBe("");

  const key = await newKey(`client-${crypto.randomUUID().slice(0, 6)}`, "sales:write,sales:read");
  const sale = apiSale({ externalId: `GEN-${crypto.randomUUID().slice(0, 8)}` });
  const { stdout } = await run(process.execPath, [join(dir, "dist/client.js")], {
    env: {
      ...process.env,
      BASE_URL: `http://localhost:${E2E_PORTS.app}`,
      API_KEY: key,
      SALE: JSON.stringify(sale),
    },
    timeout: 45_000,
  });
  const steps = Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { step: string; value: Record<string, unknown> })
      .map(({ step, value }) => [step, value]),
  );

  const sold = steps.sold as {
    status: number;
    location: string;
    result: { submissionId: string; protocol: string };
  };
  expect(sold).toMatchObject({ status: 201, result: { status: "accepted", replay: false } });
  expect(sold.location).toBe(`/api/v1/sales/${sold.result.submissionId}`);
  expect(steps["sold again"]).toEqual({ status: 200, replay: true });
  expect(steps.read).toMatchObject({
    submissionId: sold.result.submissionId,
    protocol: sold.result.protocol,
    status: "accepted",
    planId: sale.planId,
    externalId: sale.externalId,
    seller: { agent: null, integration: expect.stringMatching(/^client-/) },
  });
  expect(steps.read).not.toHaveProperty("customer");
  expect(steps.missing).toEqual({ status: 404, error: "sale_not_found" });
  expect(steps.feed, "the sale never appeared in the changes feed").toBeDefined();
  expect(steps.feed!.sale).toEqual(steps.read);
});

test("/api/v1/docs shows the document under the pages' Content-Security-Policy, with no script refused", async ({
  page,
}) => {
  const refused: string[] = [];
  await page.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (event) =>
      console.error(`CSP refused ${event.effectiveDirective}: ${event.blockedURI}`),
    ),
  );
  page.on("console", (message) => {
    if (message.text().startsWith("CSP refused")) refused.push(message.text());
  });
  page.on("pageerror", (error) => refused.push(error.message));

  const answer = await page.goto("/api/v1/docs");
  const policy = answer!.headers()["content-security-policy"]!;
  expect(policy).toMatch(/script-src 'nonce-[^']+' 'strict-dynamic';/);
  expect(policy).not.toContain("unsafe");
  await expect(page.getByRole("heading", { name: /Partner Sales API/ })).toBeVisible();
  await page.getByRole("button", { name: /POST \/sales Sell a plan/ }).click();
  await expect(page.getByText("Idempotency-Key", { exact: true })).toBeVisible();
  // Swagger UI's few icons drawn as data: images stay blank under img-src 'self'; nothing else may be refused.
  expect(refused.filter((line) => !line.startsWith("CSP refused img-src: data"))).toEqual([]);
});
