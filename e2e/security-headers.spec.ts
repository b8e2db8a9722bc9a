import { createHash, randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { E2E_PORTS, PORTAL_PORTS } from "./support/environment";
import { startPortal } from "./support/portal";
import { apiSale } from "./support/sandbox";
import {
  expectJsonHeaders,
  expectPageHeaders,
  expectStrictPagePolicy,
  watchPolicy,
} from "./support/security-headers";

/** Loads a page and checks its headers; returns the nonce its policy and every script tag carry. */
async function loadChecked(page: Page, path: string, status = 200): Promise<string> {
  const response = (await page.goto(path))!;
  expect(response.status(), path).toBe(status);
  expect(response.headers()["content-type"]).toMatch(/^text\/html/);
  expectPageHeaders(response);
  const nonce = expectStrictPagePolicy(response.headers()["content-security-policy"]);
  // As sent: browsers hide a nonce attribute from the DOM once parsed.
  const scriptTags = (await response.text()).match(/<script\b[^>]*>/g) ?? [];
  expect(scriptTags.length, path).toBeGreaterThan(0);
  for (const tag of scriptTags) expect(tag, path).toContain(` nonce="${nonce}"`);
  return nonce;
}

test("every page carries the strict policy with a fresh nonce on Next.js's scripts, and nothing is refused", async ({
  browser,
  signedIn: page,
}) => {
  const submissionId = randomUUID();
  const sale = await page.request.post("/api/sales", {
    data: apiSale(),
    headers: { "Idempotency-Key": submissionId },
  });
  expect(sale.status()).toBe(201);
  const signedOut = await (await browser.newContext()).newPage();
  const reports = [await watchPolicy(page), await watchPolicy(signedOut)];

  const pages: [Page, string, number][] = [
    [signedOut, "/sign-in", 200],
    [signedOut, "/no-such-page", 404],
    [page, "/", 200],
    [page, "/sales", 200],
    [page, `/sales/${submissionId}`, 200],
    [page, "/embed", 200],
  ];
  for (const [tab, path, status] of pages) {
    const first = await loadChecked(tab, path, status);
    const second = await loadChecked(tab, path, status);
    expect(second, path).not.toBe(first);
  }
  // A client-side navigation loads more of Next.js's code, which the nonced scripts bring in ('strict-dynamic').
  await page.goto("/");
  await page.getByRole("banner").getByRole("link", { name: "Vendas" }).click();
  await expect(page.getByRole("heading", { name: "Minhas vendas" })).toBeVisible();
  await signedOut.context().close();

  for (const { violations, consoleLines } of reports) {
    expect(violations).toEqual([]);
    expect(consoleLines).toEqual([]);
  }
});

test("the browser refuses a script or an event handler injected without the nonce", async ({
  signedIn: page,
}) => {
  // What a flaw that let markup into a page would serve: the real answer and its policy, plus an inline script
  // and an inline event handler without the nonce, and (the control) an inline script with it.
  await page.route("/", async (route) => {
    const response = await route.fetch();
    const nonce = /'nonce-([^']+)'/.exec(response.headers()["content-security-policy"] ?? "")?.[1];
    const injected =
      '<script>window.injectedScript = "ran"</script>' +
      '<img alt="" src="/icon.svg" onload="window.injectedHandler = \'ran\'">' +
      `<script nonce="${nonce}">window.trustedScript = "ran"</script>`;
    const body = (await response.text()).replace(/<body[^>]*>/, (tag) => tag + injected);
    await route.fulfill({ response, body });
  });
  await page.addInitScript(() => {
    const violations: string[] = [];
    Object.assign(window, { violations });
    document.addEventListener("securitypolicyviolation", (event) =>
      violations.push(event.effectiveDirective),
    );
  });
  await page.goto("/");
  await expect(page.getByRole("button", { name: "Enviar venda" })).toBeVisible();

  const read = () =>
    page.evaluate(() => {
      const { violations, injectedScript, injectedHandler, trustedScript } = window as unknown as {
        violations: string[];
        injectedScript?: string;
        injectedHandler?: string;
        trustedScript?: string;
      };
      return { violations: [...violations].sort(), injectedScript, injectedHandler, trustedScript };
    });
  await expect.poll(async () => (await read()).violations).toEqual(["script-src-attr", "script-src-elem"]);
  expect(await read()).toEqual({
    violations: ["script-src-attr", "script-src-elem"],
    injectedScript: undefined,
    injectedHandler: undefined,
    trustedScript: "ran",
  });
});

test("JSON answers, the proxy's refusals and Auth.js's included, are for the app's own pages only", async ({
  request,
}) => {
  const answers = [
    await request.get("/api/health"),
    await request.post("/api/sales", { data: apiSale(), headers: { "Idempotency-Key": randomUUID() } }),
    await request.post("/api/embed/session", { data: { token: "x" } }),
    await request.get("/api/auth/csrf"),
    await request.get("/api/auth/session"),
    await request.post("/", { data: "x".repeat(40_000), headers: { "content-type": "text/plain" } }),
  ];
  expect(answers.map((answer) => answer.status())).toEqual([200, 401, 401, 200, 200, 413]);
  for (const answer of answers) expectJsonHeaders(answer);
});

test("Auth.js renders no page of its own: each is a redirect to one of the app's", async ({ request }) => {
  for (const [path, to] of [
    ["/api/auth/signout", "/sign-out"],
    ["/api/auth/signin", "/sign-in"],
    ["/api/auth/error?error=Configuration", "/sign-in"],
    ["/api/auth/verify-request", "/sign-in"],
  ] as const) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(302);
    const location = new URL(response.headers().location ?? "", "http://app.invalid");
    expect(location.pathname, path).toBe(to);
  }
  const page = await request.get("/sign-out");
  expect(page.headers()["content-type"]).toMatch(/^text\/html/);
  expectPageHeaders(page);
  expectStrictPagePolicy(page.headers()["content-security-policy"]);
});

test("embed.d.ts, its TypeScript declarations, is served the same way, as text", async ({ request }) => {
  const response = await request.get("/embed.d.ts");
  const headers = response.headers();
  expect(headers["content-type"]).toBe("text/plain; charset=utf-8");
  expect(headers["access-control-allow-origin"]).toBe("*");
  expect(headers["cross-origin-resource-policy"]).toBe("cross-origin");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["cache-control"]).toBe("public, max-age=300");
  expect(headers["content-security-policy"]).toBeUndefined();
  expect(await response.text()).toContain("declare namespace PartnerSales {");
});

test("embed.js may be loaded by any portal, with crossorigin and an integrity hash too", async ({
  page,
  request,
}) => {
  const response = await request.get("/embed.js");
  const headers = response.headers();
  expect(headers["content-type"]).toMatch(/^application\/javascript/);
  expect(headers["access-control-allow-origin"]).toBe("*");
  expect(headers["cross-origin-resource-policy"]).toBe("cross-origin");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["cache-control"]).toBe("public, max-age=300");
  expect(headers["content-security-policy"]).toBeUndefined();
  const integrity = `sha384-${createHash("sha384")
    .update(await response.body())
    .digest("base64")}`;

  const portal = await startPortal(PORTAL_PORTS.allowed);
  try {
    await page.goto(`http://127.0.0.1:${PORTAL_PORTS.allowed}/`);
    const load = (hash: string) =>
      page.evaluate(
        ({ src, hash }) =>
          new Promise<string>((resolve) => {
            const script = document.createElement("script");
            script.src = src;
            script.crossOrigin = "anonymous";
            script.integrity = hash;
            script.onload = () => resolve("loaded");
            script.onerror = () => resolve("refused");
            document.head.append(script);
          }),
        { src: `http://localhost:${E2E_PORTS.app}/embed.js`, hash },
      );
    expect(await load(integrity)).toBe("loaded");
    // The control: the browser really checks the hash, which it can only do because the answer allows CORS.
    expect(await load(`sha384-${createHash("sha384").update("not embed.js").digest("base64")}`)).toBe(
      "refused",
    );
  } finally {
    await new Promise((resolve) => portal.close(resolve));
  }
});
