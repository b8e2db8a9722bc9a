import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import AxeBuilder from "@axe-core/playwright";
import type { Frame, Page } from "@playwright/test";
import { userMessageFor } from "../lib/errors";
import type { EmbedErrorCode } from "../lib/errors/embed";
import { expect, test } from "./fixtures";
import { ALLOWED_PORTAL, E2E_LOG_FILE, E2E_PORTS, PORTAL_PORTS } from "./support/environment";
import { signPortalToken, startPortal } from "./support/portal";
import { OTHER_PORTAL, PORTAL } from "./support/portal-keys";
import { formatCpf, freshCpf, sandboxControl } from "./support/sandbox";
import { parsePolicy } from "./support/security-headers";
import { englishWordsIn } from "./support/english-words";

const APP = `http://localhost:${E2E_PORTS.app}`;
const OTHER_ORIGIN = `http://127.0.0.1:${PORTAL_PORTS.other}`;

let portals: Server[] = [];

test.beforeAll(async () => {
  portals = await Promise.all([startPortal(PORTAL_PORTS.allowed), startPortal(PORTAL_PORTS.other)]);
});
test.afterAll(async () => {
  await Promise.all(portals.map((server) => new Promise((resolve) => server.close(resolve))));
});
test.beforeEach(() => sandboxControl("POST", "reset"));

/** What e2e/support/portal.ts's page keeps on its window. */
interface PortalWindow {
  events: { type: string; code?: string; height?: number; setting?: string }[];
  messages: { origin: string; data: { type?: string; code?: string; height?: number } }[];
  tokenRequests: number;
  frameLoads?: number;
  giveToken: (token: string) => void;
  mountPartnerSales: (options: unknown) => void;
  addFrame: (src: string) => Promise<void>;
  handle: { prefill: (fields: unknown) => void };
}

async function mountInPortal(page: Page, portal: string, options: Record<string, unknown>) {
  await page.goto(`${portal}/`);
  await page.evaluate(
    (mountOptions) => (window as unknown as PortalWindow).mountPartnerSales(mountOptions),
    options,
  );
  return page.frameLocator("#partner-sales iframe");
}

const events = (page: Page) => page.evaluate(() => (window as unknown as PortalWindow).events);

const appFrame = (page: Page): Frame => page.frames().find((each) => each.url().startsWith(`${APP}/`))!;

/** The height of what the app's frame shows: everything it renders is in its <main>. */
const contentHeight = (page: Page) =>
  appFrame(page).evaluate(() => Math.ceil(document.querySelector("main")!.getBoundingClientRect().height));

/**
 * The portal's iframe (embed.js following partner-sales:resize) is exactly as tall as what the frame shows, and
 * the frame said so.
 */
async function expectFrameFitsContent(page: Page) {
  const iframe = page.locator("#partner-sales iframe");
  await expect
    .poll(async () => {
      const [shown, framed] = await Promise.all([contentHeight(page), iframe.boundingBox()]);
      return shown > 0 && framed?.height === shown;
    })
    .toBe(true);
  expect(await events(page)).toContainEqual({
    type: "partner-sales:resize",
    height: await contentHeight(page),
  });
}

/** A problem in the frame: its message, the frame fitted to it, and `partner-sales:error` with its code. */
async function expectProblem(page: Page, code: EmbedErrorCode) {
  const frame = page.frameLocator("#partner-sales iframe");
  await expect(frame.getByRole("main").getByRole("alert")).toContainText(userMessageFor(code));
  await expect(frame.getByLabel("CPF")).toHaveCount(0);
  await expect.poll(() => events(page)).toContainEqual({ type: "partner-sales:error", code });
  await expectFrameFitsContent(page);
  expect((await page.locator("#partner-sales iframe").boundingBox())!.height).toBeLessThan(300);
}

/** The portal's page and the app's frame in it (axe checks frames too); the frame's words are pt-BR. */
async function expectNoAxeViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
  expect(await englishWordsIn(appFrame(page))).toEqual([]);
}

/**
 * Resolves once the frame has handled every message the portal posted to it so far and rendered what they changed:
 * a sentinel posted after them arrives after them (postMessage keeps the order between two windows), and two
 * animation frames later React has painted. What a test finds unchanged then, no earlier message changed.
 */
async function frameCaughtUp(page: Page): Promise<void> {
  const frame = appFrame(page);
  await frame.evaluate(() => {
    (window as unknown as { caughtUp?: Promise<void> }).caughtUp = new Promise((resolve) => {
      window.addEventListener("message", function onSentinel(event: MessageEvent<{ type?: string }>) {
        if (event.data?.type !== "e2e:sentinel") return;
        window.removeEventListener("message", onSentinel);
        requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      });
    });
  });
  await page.evaluate(
    (app) =>
      document
        .querySelector<HTMLIFrameElement>("#partner-sales iframe")!
        .contentWindow!.postMessage({ type: "e2e:sentinel" }, app),
    APP,
  );
  await frame.evaluate(() => (window as unknown as { caughtUp: Promise<void> }).caughtUp);
}

/** Every request the browser makes, from every page and frame, with its body. */
function recordRequests(page: Page) {
  const requests: { method: string; url: string; body: string }[] = [];
  page
    .context()
    .on("request", (request) =>
      requests.push({ method: request.method(), url: request.url(), body: request.postData() ?? "" }),
    );
  return {
    requests,
    carrying: (token: string) =>
      requests
        .filter(({ url, body }) => url.includes(token) || body.includes(token))
        .map(({ method, url }) => `${method} ${new URL(url).pathname}`),
    exchanges: () => requests.filter(({ url }) => new URL(url).pathname === "/api/embed/session"),
  };
}

function recordSessionCookies(page: Page): string[] {
  const cookies: string[] = [];
  page.on("response", async (response) => {
    for (const header of await response.headersArray()) {
      if (header.name.toLowerCase() === "set-cookie" && header.value.startsWith("authjs.session-token=")) {
        cookies.push(header.value);
      }
    }
  });
  return cookies;
}

test("a portal mounts the app with a signed token: signed in, prefilled, sale accepted, event received", async ({
  page,
}) => {
  const recorded = recordRequests(page);
  const cookies = recordSessionCookies(page);
  const token = await signPortalToken({
    name: "Paula Portal",
    prefill: {
      customerName: "Cliente Prefill",
      customerEmail: "cliente@example.com",
      externalId: "PORTAL-9",
    },
  });
  const frame = await mountInPortal(page, ALLOWED_PORTAL, { token });
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Cliente Prefill");
  await expect(frame.getByLabel("ID do cliente no parceiro")).toHaveValue("PORTAL-9");
  await expect(page.locator("#partner-sales iframe")).toHaveAttribute("title", "Partner Sales: nova venda");

  await frame.getByLabel("CPF").fill(formatCpf(freshCpf()));
  await frame.getByLabel("Telefone").fill("(11) 98765-4321");
  // "Plano Essencial": its option starts with what tells it apart.
  const plan = frame.getByLabel("Plano");
  await plan.selectOption(
    (await plan
      .locator("option")
      .filter({ hasText: /^Essencial\b/ })
      .getAttribute("value"))!,
  );
  await frame.getByRole("button", { name: "Enviar venda" }).click();
  await expect(frame.getByRole("main").locator('[role="status"][data-status]')).toContainText("Venda aceita");

  await expect
    .poll(async () => (await events(page)).map((event) => event.type))
    .toContain("partner-sales:submitted");
  const submitted = (await events(page)).find((event) => event.type === "partner-sales:submitted");
  expect(submitted).toEqual({
    type: "partner-sales:submitted",
    submissionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    protocol: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/),
    status: "accepted",
    externalId: "PORTAL-9",
  });
  expect((await events(page)).map((event) => event.type)).toContain("partner-sales:ready");
  expect(JSON.stringify(await events(page))).not.toContain("Cliente Prefill");

  expect(cookies.length).toBeGreaterThan(0);
  for (const cookie of cookies) {
    expect(cookie).toMatch(/;\s*SameSite=None/i);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*Partitioned/i);
  }
  // The token (or its signature alone) is in no address the page or the frame loaded: it went once, in the
  // body of the exchange.
  expect(recorded.requests.length).toBeGreaterThan(5);
  expect(recorded.carrying(token)).toEqual(["POST /api/embed/session"]);
  const signature = token.split(".")[2]!;
  expect(recorded.requests.filter(({ url }) => url.includes(signature))).toEqual([]);
  expect(appFrame(page).url()).toBe(`${APP}/embed?status=signed-in`);

  // An accepted sale leaves the form empty for the next customer, whose prefill fills it at once.
  await page.evaluate(() =>
    (window as unknown as PortalWindow).handle.prefill({ customerName: "Próxima Cliente" }),
  );
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Próxima Cliente");
  await expect(frame.getByLabel("CPF")).toHaveValue("");
});

test("the token may come from a function, asked for when the frame is ready", async ({ page }) => {
  const recorded = recordRequests(page);
  const frame = await mountInPortal(page, ALLOWED_PORTAL, { deferToken: true });
  await expect.poll(() => page.evaluate(() => (window as unknown as PortalWindow).tokenRequests)).toBe(1);
  await expect(frame.getByRole("status")).toHaveText("Entrando…");
  const token = await signPortalToken();
  await page.evaluate((fresh) => (window as unknown as PortalWindow).giveToken(fresh), token);
  await expect(frame.getByLabel("CPF")).toBeVisible();
  expect(recorded.carrying(token)).toEqual(["POST /api/embed/session"]);
});

test("only the page framing the app hands it a token: another frame on that page is ignored, whatever its origin", async ({
  page,
}) => {
  const recorded = recordRequests(page);
  await page.goto(`${ALLOWED_PORTAL}/`);
  await page.evaluate(
    ([other, same]) =>
      Promise.all([
        (window as unknown as PortalWindow).addFrame(other!),
        (window as unknown as PortalWindow).addFrame(same!),
      ]),
    [`${OTHER_ORIGIN}/other-frame`, `${ALLOWED_PORTAL}/other-frame`],
  );
  await page.evaluate(() => (window as unknown as PortalWindow).mountPartnerSales({ deferToken: true }));
  // The frame asked for its token, so it is listening.
  await expect.poll(() => page.evaluate(() => (window as unknown as PortalWindow).tokenRequests)).toBe(1);
  const app = appFrame(page);
  await app.evaluate(() => {
    const seen: unknown[] = [];
    (window as unknown as { seen: unknown[] }).seen = seen;
    window.addEventListener("message", (event) => seen.push(event.data));
  });

  // Genuine tokens of the portal, posted from a frame of another origin and from a sibling frame of the portal's
  // own origin: neither is window.parent.
  const intruding = [await signPortalToken(), await signPortalToken()];
  const others = page.frames().filter((each) => each.url().endsWith("/other-frame"));
  expect(others.map((each) => new URL(each.url()).origin).sort()).toEqual(
    [ALLOWED_PORTAL, OTHER_ORIGIN].sort(),
  );
  await Promise.all(
    others.map((other, index) =>
      other.evaluate(
        (token) => (window as unknown as { postToken: (t: string) => void }).postToken(token),
        intruding[index]!,
      ),
    ),
  );
  // Both were delivered; the app's own listener, added first, has seen them too.
  await expect.poll(() => app.evaluate(() => (window as unknown as { seen: unknown[] }).seen.length)).toBe(2);
  const frame = page.frameLocator("#partner-sales iframe");
  await expect(frame.getByRole("status")).toHaveText("Entrando…");

  const token = await signPortalToken();
  await page.evaluate((fresh) => (window as unknown as PortalWindow).giveToken(fresh), token);
  await expect(frame.getByLabel("CPF")).toBeVisible();
  expect(recorded.exchanges().map(({ body }) => body)).toEqual([JSON.stringify({ token })]);
  for (const other of intruding) expect(recorded.carrying(other)).toEqual([]);
});

test("a page on an origin not in the list cannot show the app, and its token is never asked for", async ({
  page,
}) => {
  const recorded = recordRequests(page);
  const frame = await mountInPortal(page, OTHER_ORIGIN, { deferToken: true });
  // The browser refused to frame the app (frame-ancestors): the frame has loaded for good, as an error page.
  await expect.poll(() => page.evaluate(() => (window as unknown as PortalWindow).frameLoads ?? 0)).toBe(1);
  await expect(frame.getByLabel("CPF")).toHaveCount(0);
  await expect(frame.getByText("Entrando")).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as PortalWindow).tokenRequests)).toBe(0);
  expect(recorded.exchanges()).toEqual([]);
  // The portal hears why, from embed.js: the frame never spoke (10 s after it loaded as the browser's error).
  await expect
    .poll(() => events(page), { timeout: 30_000 })
    .toEqual([{ type: "partner-sales:error", code: "frame_unavailable" }]);
});

test("expired, replayed, misaddressed, malformed, wrongly signed and wrongly claimed tokens each say so, fit the frame to it, tell the portal, and sign nobody in", async ({
  page,
}) => {
  const cookies = recordSessionCookies(page);
  const now = Math.floor(Date.now() / 1000);
  const used = await signPortalToken();
  const refused: [string, Promise<string>, EmbedErrorCode][] = [
    ["expired", signPortalToken({}, { issuedAt: now - 600, lifetime: 300 }), "token_expired"],
    [
      "signed by another configured portal's key",
      signPortalToken({}, { signer: OTHER_PORTAL, issuer: PORTAL.issuer }),
      "token_signature_invalid",
    ],
    ["signed, but naming no one", signPortalToken({ name: " " }), "token_claims_invalid"],
    ["signed, for 10 minutes", signPortalToken({}, { lifetime: 600 }), "token_claims_invalid"],
    ["not a signed token", Promise.resolve("a-session-id-pasted-by-mistake"), "token_malformed"],
    ["for another audience", signPortalToken({}, { audience: "another-app" }), "token_misaddressed"],
    ["of another type", signPortalToken({}, { type: "JWT" }), "token_misaddressed"],
    [
      "from an unknown issuer",
      signPortalToken({}, { issuer: "https://stranger.example" }),
      "token_misaddressed",
    ],
  ];
  for (const [, pending, code] of refused) {
    await mountInPortal(page, ALLOWED_PORTAL, { token: await pending });
    await expectProblem(page, code);
    await expectNoAxeViolations(page);
  }
  expect(cookies).toEqual([]);

  // Used once, in another browser: this one, without a session, gets the refusal.
  const elsewhere = await page.context().browser()!.newContext();
  await mountInPortal(await elsewhere.newPage(), ALLOWED_PORTAL, { token: used }).then((frame) =>
    expect(frame.getByLabel("CPF")).toBeVisible(),
  );
  await elsewhere.close();
  await mountInPortal(page, ALLOWED_PORTAL, { token: used });
  await expectProblem(page, "token_replayed");
  expect(cookies).toEqual([]);
});

test("a reload with the used token goes on with the frame's live session of that agent, and only that agent's", async ({
  page,
}) => {
  const cookies = recordSessionCookies(page);
  const token = await signPortalToken({ prefill: { customerName: "Cliente Recarga" } });
  let frame = await mountInPortal(page, ALLOWED_PORTAL, { token });
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Cliente Recarga");
  const sessionsStarted = cookies.length;
  expect(sessionsStarted).toBeGreaterThan(0);

  // The portal page is reloaded and hands the frame the same token: the form, prefilled, on the same session.
  frame = await mountInPortal(page, ALLOWED_PORTAL, { token });
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Cliente Recarga");
  await expect(frame.getByRole("main").getByRole("alert")).toHaveCount(0);
  expect(cookies).toHaveLength(sessionsStarted);
  expect((await events(page)).filter((event) => event.type === "partner-sales:error")).toEqual([]);
  await expect
    .poll(() => readFileSync(E2E_LOG_FILE, "utf8"))
    .toMatch(/"event":"auth\.embed_session_continued","agentId":"[0-9a-f-]{36}","reason":"replayed"/);

  // Another agent takes this screen: the first agent's token no longer opens anything.
  frame = await mountInPortal(page, ALLOWED_PORTAL, { token: await signPortalToken() });
  await expect(frame.getByLabel("CPF")).toBeVisible();
  await mountInPortal(page, ALLOWED_PORTAL, { token });
  await expectProblem(page, "token_replayed");
});

test("an expired token of the agent whose session the frame holds shows the form too", async ({ page }) => {
  const agent = { sub: `partner-agent-late-${Date.now()}` };
  let frame = await mountInPortal(page, ALLOWED_PORTAL, { token: await signPortalToken(agent) });
  await expect(frame.getByLabel("CPF")).toBeVisible();
  const issuedAt = Math.floor(Date.now() / 1000) - 600;
  frame = await mountInPortal(page, ALLOWED_PORTAL, {
    token: await signPortalToken(
      { ...agent, prefill: { externalId: "LATE-1" } },
      { issuedAt, lifetime: 300 },
    ),
  });
  await expect(frame.getByLabel("ID do cliente no parceiro")).toHaveValue("LATE-1");
  // Of another agent, refused.
  await mountInPortal(page, ALLOWED_PORTAL, {
    token: await signPortalToken({}, { issuedAt, lifetime: 300 }),
  });
  await expectProblem(page, "token_expired");
});

test("without a token or a session the frame says so, fits it, and never asks for a password in place", async ({
  page,
}) => {
  const frame = await mountInPortal(page, ALLOWED_PORTAL, { appearance: { radius: 4 } });
  await expectProblem(page, "session_missing");
  await expectNoAxeViolations(page);
  // The app's own sign-in (a password, a second factor) opens in a tab of its own, never inside the portal.
  const link = frame.getByRole("link", { name: "Entrar no Partner Sales em uma nova aba" });
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("href", "/sign-in");
  await expectFrameFitsContent(page);

  // Sent into the frame anyway (a portal linking to it), the sign-in page shows no password field.
  await appFrame(page).goto(`${APP}/sign-in`);
  await expect(frame.getByText("não é feita dentro do portal")).toBeVisible();
  await expect(frame.getByLabel("Senha")).toHaveCount(0);
});

test("a session cookie the browser did not keep, a token the portal did not give and a failed exchange each say so and tell the portal", async ({
  page,
}) => {
  // The exchange said yes, yet the browser kept no cookie (third-party cookies blocked): played by answering
  // for the app without one.
  await page.route(`${APP}/api/embed/session`, (route) =>
    route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ prefill: {} }) }),
  );
  const frame = await mountInPortal(page, ALLOWED_PORTAL, { token: await signPortalToken() });
  await expectProblem(page, "session_cookie_blocked");
  await expect(frame.getByRole("link", { name: "Abrir o Partner Sales em uma nova aba" })).toHaveAttribute(
    "target",
    "_blank",
  );
  await expectNoAxeViolations(page);

  await page.route(`${APP}/api/embed/session`, (route) => route.abort("connectionrefused"));
  await mountInPortal(page, ALLOWED_PORTAL, { token: await signPortalToken() });
  await expectProblem(page, "service_unavailable");
  await expectNoAxeViolations(page);
  await page.unroute(`${APP}/api/embed/session`);

  await mountInPortal(page, ALLOWED_PORTAL, { deferToken: true });
  await expect.poll(() => page.evaluate(() => (window as unknown as PortalWindow).tokenRequests)).toBe(1);
  await page.evaluate(() => (window as unknown as PortalWindow).giveToken(""));
  await expectProblem(page, "token_unavailable");
  await expectNoAxeViolations(page);
});

test("a token in the address is never used: the frame says why and tells the portal, nothing is exchanged", async ({
  page,
}) => {
  const recorded = recordRequests(page);
  const token = await signPortalToken();
  // An integration from before embed.js handed tokens over by message, building the address itself.
  await page.goto(`${ALLOWED_PORTAL}/`);
  await page.evaluate(() => {
    const messages: unknown[] = [];
    (window as unknown as { messages: unknown[] }).messages = messages;
    window.addEventListener("message", (event) => messages.push({ origin: event.origin, data: event.data }));
  });
  await page.evaluate(
    (src) => (window as unknown as PortalWindow).addFrame(src),
    `${APP}/embed?token=${token}`,
  );
  const frame = page.frameLocator("#others iframe");
  await expect(frame.getByRole("main").getByRole("alert")).toHaveText(userMessageFor("token_in_url"));
  await expect
    .poll(() => page.evaluate(() => (window as unknown as PortalWindow).messages))
    .toContainEqual({ origin: APP, data: { type: "partner-sales:error", code: "token_in_url" } });
  expect(await page.evaluate(() => (window as unknown as PortalWindow).messages)).toContainEqual({
    origin: APP,
    data: { type: "partner-sales:resize", height: await contentHeight(page) },
  });
  expect(appFrame(page).url()).toBe(`${APP}/embed`);

  // Opened at the top level, the same.
  await page.goto(`/embed?token=${token}`);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(userMessageFor("token_in_url"));
  await expect(page).toHaveURL(`${APP}/embed`);
  expect(recorded.exchanges()).toEqual([]);
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);

  // And a frame waiting for a portal's token, opened outside any portal, asks nobody for one.
  await page.goto("/embed?sign-in=portal");
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(userMessageFor("token_not_framed"));
  await expectNoAxeViolations(page);
  expect(recorded.exchanges()).toEqual([]);
});

test("a portal's appearance restyles the form; an unreadable or hostile one is ignored, with a warning each", async ({
  page,
  request,
}) => {
  const recorded = recordRequests(page);
  let frame = await mountInPortal(page, ALLOWED_PORTAL, {
    token: await signPortalToken(),
    appearance: { brandColor: "#7A1F5C", radius: 0, fontFamily: "Georgia, serif" },
  });
  await expect(frame.getByRole("button", { name: "Enviar venda" })).toHaveCSS(
    "background-color",
    "rgb(122, 31, 92)",
  );
  await expect(frame.getByRole("button", { name: "Enviar venda" })).toHaveCSS("border-radius", "0px");
  await expect(frame.getByLabel("CPF")).toHaveCSS("border-radius", "0px");
  await expect(frame.locator("body")).toHaveCSS("font-family", /^"?Georgia"?, serif$/);
  // Kept through the token sign-in's navigation.
  expect(new URL(appFrame(page).url()).searchParams.get("brand-color")).toBe("#7A1F5C");
  expect((await events(page)).filter((event) => event.type === "partner-sales:warning")).toEqual([]);
  await expectNoAxeViolations(page);
  const stylesheets = () =>
    recorded.requests.filter(({ url }) => new URL(url).pathname === "/embed/appearance.css").length;
  expect(stylesheets()).toBeGreaterThan(0);

  const before = stylesheets();
  const consoleWarnings: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "warning") consoleWarnings.push(message.text());
  });
  frame = await mountInPortal(page, ALLOWED_PORTAL, {
    token: await signPortalToken(),
    appearance: { brandColor: "#ffff00", radius: 99, fontFamily: "Georgia;}body{display:none" },
  });
  await expect(frame.getByRole("button", { name: "Enviar venda" })).toHaveCSS(
    "background-color",
    "rgb(23, 75, 166)",
  );
  await expect
    .poll(async () => (await events(page)).filter((event) => event.type === "partner-sales:warning"))
    .toEqual([
      { type: "partner-sales:warning", code: "appearance_low_contrast", setting: "brandColor" },
      { type: "partner-sales:warning", code: "appearance_invalid", setting: "radius" },
      { type: "partner-sales:warning", code: "appearance_invalid", setting: "fontFamily" },
    ]);
  expect(stylesheets()).toBe(before);
  // embed.js says so in the portal's console too.
  expect(consoleWarnings).toContain("PartnerSales: appearance.radius was ignored (appearance_invalid)");
  await expectNoAxeViolations(page);

  // The stylesheet writes only what passed, whatever its address says.
  const hostile = new URLSearchParams({
    "brand-color": "#000;}body{display:none",
    radius: "8",
    "font-family": 'x"}body{display:none',
  });
  const stylesheet = await request.get(`/embed/appearance.css?${hostile}`);
  expect(stylesheet.headers()["content-type"]).toBe("text/css; charset=utf-8");
  expect(await stylesheet.text()).toBe(":root {\n  --radius-md: 8px;\n  --radius-lg: 11px;\n}\n");
});

test("prefill comes only from the allowed portal and never submits", async ({ page }) => {
  const frame = await mountInPortal(page, ALLOWED_PORTAL, { token: await signPortalToken() });
  await expect(frame.getByLabel("CPF")).toBeVisible();
  const app = page.frames().find((each) => each.url().includes("/embed"))!;
  await app.evaluate(() =>
    window.dispatchEvent(
      new MessageEvent("message", {
        data: { type: "partner-sales:prefill", fields: { customerName: "Intruso" } },
        origin: "http://evil.example",
        source: window.parent,
      }),
    ),
  );
  await frameCaughtUp(page);
  await expect(frame.getByLabel("Nome completo")).toHaveValue("");

  await page.evaluate(() =>
    (window as unknown as PortalWindow).handle.prefill({
      customerName: "Vinda do Portal",
      customerDocument: "52998224725",
      birthDate: "1990-05-10",
      unknownField: "ignored",
    }),
  );
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Vinda do Portal");
  await expect(frame.getByLabel("CPF")).toHaveValue("529.982.247-25");
  await expect(frame.getByLabel("Data de nascimento")).toHaveValue("10/05/1990");
  expect((await sandboxControl<{ saleRequests: number }>("GET", "stats")).saleRequests).toBe(0);
});

test("the frame grows with its content", async ({ page }) => {
  const frame = await mountInPortal(page, ALLOWED_PORTAL, {
    token: await signPortalToken(),
    initialHeight: 200,
  });
  await expect(frame.getByLabel("CPF")).toBeVisible();
  const iframe = page.locator("#partner-sales iframe");
  await expect.poll(async () => (await iframe.boundingBox())?.height ?? 0).toBeGreaterThan(300);
  const before = (await iframe.boundingBox())!.height;
  await frame.getByRole("button", { name: "Enviar venda" }).click();
  await expect(frame.getByText("Informe o CPF.")).toBeVisible();
  await expect.poll(async () => (await iframe.boundingBox())?.height ?? 0).toBeGreaterThan(before + 40);
});

test("every response names exactly the allowed portals as frame ancestors", async ({ request }) => {
  for (const path of ["/embed", "/sign-in", "/api/health", "/api/auth/csrf"]) {
    const response = await request.get(path);
    const policy = parsePolicy(response.headers()["content-security-policy"]);
    expect(policy["frame-ancestors"]).toEqual(["'self'", ALLOWED_PORTAL]);
  }
});

test("Auth.js's own cookies follow the embedded policy too (CSRF included)", async ({ request }) => {
  const response = await request.get("/api/auth/csrf");
  const csrf = response
    .headersArray()
    .find(
      (header) => header.name.toLowerCase() === "set-cookie" && header.value.startsWith("authjs.csrf-token="),
    );
  expect(csrf?.value).toMatch(/;\s*SameSite=None/i);
  expect(csrf?.value).toMatch(/;\s*Secure/i);
  expect(csrf?.value).toMatch(/;\s*Partitioned/i);
});
