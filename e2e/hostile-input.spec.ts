import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { memoryOf } from "../bench/lib/processes";
import { SALE_FIELDS } from "../lib/validation/sale";
import { CONTROL_CHARACTER_MESSAGE } from "../lib/validation/text";
import { expect, test } from "./fixtures";
import { SaleFormPage } from "./pages/sale-form-page";
import { SignInPage } from "./pages/sign-in-page";
import { DEMO_AGENT, E2E_PORTS } from "./support/environment";
import {
  cookieHeader,
  expectErrorBody,
  expectPortuguese,
  pidListeningOn,
  send,
  transportCases,
} from "./support/hostile-requests";
import { apiSale, freshCpf, sandboxControl, sandboxStats } from "./support/sandbox";

const APP = `http://localhost:${E2E_PORTS.app}`;

/** A request the browser made, sent again with a value swapped: its length is the new body's, not the old one. */
const replayHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name !== "content-length"));

const cookiesOf = async (page: Page) => cookieHeader(await page.context().cookies());

// One server for the whole file: its memory is read before and after everything below.
test.describe.configure({ mode: "serial" });
let serverPid: number | undefined;
let rssBeforeMb = 0;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  serverPid = pidListeningOn(E2E_PORTS.app);
  if (!serverPid) return;
  // Warm first (each page rendered, a sale, each refusal once): what is measured is memory the hostile traffic
  // leaves behind, not the code paths a fresh server loads on first use.
  const page = await browser.newPage();
  await new SignInPage(page).goto();
  await new SignInPage(page).signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  await new SaleFormPage(page).goto();
  await page.request.post("/api/sales", { data: apiSale(), headers: { "Idempotency-Key": randomUUID() } });
  for (const hostile of transportCases()) await send(APP, hostile, await cookiesOf(page));
  await page.close();
  // And one flood: the heap the first one grows to is kept by V8 (a high-water mark, reached once), which is
  // not what this file looks for, memory that stays behind because of what was sent.
  await flood();
  rssBeforeMb = memoryOf(serverPid).rssMb;
});

/** 48 large bodies at once, chunked (no declared length), to every entry point in turn. */
function flood() {
  const hostile = transportCases().filter((request) => request.chunked);
  return Promise.all(
    Array.from({ length: 48 }, async (_, index) => {
      const request = hostile[index % hostile.length]!;
      return { expected: request.status, status: (await send(APP, request)).status };
    }),
  );
}
test.beforeEach(() => sandboxControl("POST", "reset"));

test("every entry point refuses oversized, mistyped and malformed bodies with its documented status", async ({
  signedIn: page,
}) => {
  test.setTimeout(120_000);
  const cookie = await cookiesOf(page);
  for (const hostile of transportCases()) {
    // Signed in too: a session must not open a way around the limits.
    for (const withCookie of [undefined, cookie]) {
      const answer = await send(APP, hostile, withCookie).catch((error: Error) => {
        throw new Error(`${hostile.name}${withCookie ? " (signed in)" : ""}: ${error.message}`);
      });
      expect(answer.status, hostile.name).toBe(hostile.status);
      expectErrorBody(answer, hostile.error);
    }
  }
  expect((await sandboxStats()).saleRequests).toBe(0);
  expect((await fetch(`${APP}/api/health`)).status).toBe(200);
});

test("many large bodies at once leave the server up and within its memory", async () => {
  test.setTimeout(120_000);
  const answers = await flood();
  expect(answers.map((answer) => answer.status)).toEqual(answers.map((answer) => answer.expected));
  expect((await fetch(`${APP}/api/health`)).status).toBe(200);
});

test("every JSON type, control character and overlong value in every sale field gets a pt-BR field error", async ({
  signedIn: page,
}) => {
  test.setTimeout(60_000);
  const values: [string, unknown, string | RegExp][] = [
    ["a number", 42, "Entrada inválida: esperava um texto, recebeu um número"],
    ["a boolean", false, "Entrada inválida: esperava um texto, recebeu um valor booleano"],
    ["an array", ["529.982.247-25"], "Entrada inválida: esperava um texto, recebeu um vetor"],
    ["an object", { value: "x" }, "Entrada inválida: esperava um texto, recebeu um objeto"],
    ["nesting 3,000 deep", JSON.parse("[".repeat(3000) + "]".repeat(3000)), /recebeu um vetor$/],
    ["a NUL", "Maria\u0000Souza", CONTROL_CHARACTER_MESSAGE],
    ["an escape character", "Maria\u001bSouza", CONTROL_CHARACTER_MESSAGE],
    ["an unpaired surrogate", "Maria\ud800Souza", CONTROL_CHARACTER_MESSAGE],
    ["15,000 characters", "9".repeat(15_000), /./],
  ];
  for (const field of SALE_FIELDS) {
    for (const [name, value, message] of values) {
      const response = await page.request.post("/api/sales", {
        data: { ...apiSale(), [field]: value },
        headers: { "Idempotency-Key": randomUUID() },
      });
      expect(response.status(), `${field}: ${name}`).toBe(400);
      const body = (await response.json()) as { error: string; fieldErrors: Record<string, string> };
      expect(body.error).toBe("invalid_fields");
      expect(Object.keys(body.fieldErrors), `${field}: ${name}`).toEqual([field]);
      expect(body.fieldErrors[field]).toMatch(message);
      expectPortuguese(body.fieldErrors[field]);
    }
  }
  expect((await sandboxStats()).saleRequests).toBe(0);
});

test("the sale and sign-in server actions answer hostile fields with their form messages", async ({
  page,
}) => {
  // The real forms post once; the same requests are then sent again with hostile values in place of a marker.
  const signIn = new SignInPage(page);
  await signIn.goto();
  const signInPost = page.waitForRequest((request) => Boolean(request.headers()["next-action"]));
  await signIn.signIn(DEMO_AGENT.email, "marcador-senha");
  const signInAction = await signInPost;
  const replaySignIn = (password: string, email: string = DEMO_AGENT.email) =>
    page.request.post("/sign-in", {
      headers: replayHeaders(signInAction.headers()),
      data: signInAction
        .postDataBuffer()!
        .toString("utf8")
        .replace("marcador-senha", password)
        .replace(DEMO_AGENT.email, email),
    });
  for (const [email, password] of [
    ["agente\u0000@demo.local", "demo1234"],
    [DEMO_AGENT.email, "x".repeat(20_000)],
    [DEMO_AGENT.email, "demo\ud8001234"],
  ] as const) {
    const answer = await replaySignIn(password, email);
    expect(answer.status()).toBe(200);
    expect(await answer.text()).toContain("E-mail ou senha incorretos.");
  }
  const huge = await replaySignIn("x".repeat(2 * 1024 * 1024));
  expect(huge.status()).toBe(413);
  expect((await huge.json()).error).toBe("payload_too_large");

  await signIn.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  const form = new SaleFormPage(page);
  await form.goto();
  await form.fill({
    cpf: freshCpf(),
    name: "Marcador Nome",
    email: "a@example.com",
    phone: "(11) 98765-4321",
    plan: "Plano Família",
  });
  const salePost = page.waitForRequest((request) => Boolean(request.headers()["next-action"]));
  await form.submit().click();
  const saleAction = await salePost;
  await expect(form.status()).toContainText("Venda aceita");
  const before = (await sandboxStats()).saleRequests;
  // (A lone surrogate cannot travel in a UTF-8 form body: it arrives as U+FFFD, refused as a name would be.)
  for (const name of ["Maria\u0000Souza", "Maria\u001bSouza"]) {
    const answer = await page.request.post("/", {
      headers: replayHeaders(saleAction.headers()),
      data: saleAction.postDataBuffer()!.toString("utf8").replace("Marcador Nome", name),
    });
    expect(answer.status()).toBe(200);
    expect(await answer.text()).toContain(CONTROL_CHARACTER_MESSAGE);
  }
  // Another site's post, claiming through X-Forwarded-Host to be for that site: no trusted proxy said so.
  const { "sec-fetch-site": _site, ...replayed } = replayHeaders(saleAction.headers());
  const forged = await page.request.post("/", {
    headers: { ...replayed, origin: "https://evil.example", "x-forwarded-host": "evil.example" },
    data: saleAction.postDataBuffer()!.toString("utf8"),
  });
  expect(forged.status()).toBe(403);
  expect((await forged.json()).error).toBe("cross_site");
  expect((await sandboxStats()).saleRequests).toBe(before);
});

test("Auth.js's own sign-in route answers a NUL e-mail with the ordinary refusal", async ({ request }) => {
  const { csrfToken } = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const answer = await request.post("/api/auth/callback/credentials", {
    form: { email: "agente\u0000@demo.local", password: "demo1234", csrfToken },
    maxRedirects: 0,
  });
  expect(answer.status()).toBe(302);
  expect(answer.headers().location).toContain("error=CredentialsSignin");
  expect(answer.headers().location).not.toContain("Configuration");
});

test("after all of it the server is up, sells, and holds no more memory than before", async ({
  signedIn: page,
}) => {
  const sale = await page.request.post("/api/sales", {
    data: apiSale(),
    headers: { "Idempotency-Key": randomUUID() },
  });
  expect(sale.status()).toBe(201);
  test.skip(!serverPid, "no /proc here to read the server's memory from");
  const rssAfterMb = memoryOf(serverPid!).rssMb;
  test.info().annotations.push({
    type: "rss",
    description: `${rssBeforeMb.toFixed(0)} MB before, ${rssAfterMb.toFixed(0)} MB after`,
  });
  expect(rssAfterMb - rssBeforeMb).toBeLessThanOrEqual(50);
});
