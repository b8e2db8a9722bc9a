import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { NextConfig } from "next";
import { describe, expect, it } from "vitest";
import {
  contentSecurityPolicy,
  createNonce,
  documentSecurityHeaders,
  jsonSecurityHeaders,
  PERMISSIONS_POLICY,
  transportSecurityHeaders,
} from "./security-headers";

const PORTAL = "https://portal.partner.example";
const page = { nonce: "bm9uY2Utb2YtdGhlLXRlc3Q=", allowedOrigins: [PORTAL], https: false };

describe("createNonce", () => {
  it("gives 128 random bits in base64, different every time", () => {
    const nonces = new Set(Array.from({ length: 100 }, createNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(Buffer.from(nonce, "base64")).toHaveLength(16);
    }
  });
});

describe("contentSecurityPolicy", () => {
  it("lets only the nonce's scripts run, loads the rest from the app, and names the allowed portals", () => {
    expect(contentSecurityPolicy(page).split("; ")).toEqual([
      "default-src 'self'",
      `script-src 'nonce-${page.nonce}' 'strict-dynamic'`,
      `style-src 'self' 'nonce-${page.nonce}'`,
      "img-src 'self'",
      "font-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      `frame-ancestors 'self' ${PORTAL}`,
    ]);
  });

  it("never allows inline code or eval outside development", () => {
    const policy = contentSecurityPolicy({ ...page, allowedOrigins: [] });
    expect(policy).not.toMatch(/unsafe-|https:|http:|data:|\*/);
  });

  it("upgrades insecure requests only when the app is served over https", () => {
    expect(contentSecurityPolicy({ ...page, https: true })).toMatch(/; upgrade-insecure-requests$/);
    expect(contentSecurityPolicy(page)).not.toContain("upgrade-insecure-requests");
  });

  it("allows eval and inline styles only to `next dev`, still with the nonce for scripts", () => {
    const policy = contentSecurityPolicy({ ...page, development: true });
    expect(policy).toContain(`script-src 'nonce-${page.nonce}' 'strict-dynamic' 'unsafe-eval'`);
    expect(policy).toContain("style-src 'self' 'unsafe-inline'");
  });
});

describe("documentSecurityHeaders", () => {
  it("sends the policy, isolation from other windows, denied features, no referrer abroad and nosniff", () => {
    expect(documentSecurityHeaders(page)).toEqual({
      "Content-Security-Policy": contentSecurityPolicy(page),
      "Cross-Origin-Opener-Policy": "same-origin",
      "Permissions-Policy": PERMISSIONS_POLICY,
      "Referrer-Policy": "same-origin",
      "X-Content-Type-Options": "nosniff",
    });
  });

  it("adds HSTS for a year, subdomains included, only over https", () => {
    expect(documentSecurityHeaders({ ...page, https: true })["Strict-Transport-Security"]).toBe(
      "max-age=31536000; includeSubDomains",
    );
    expect(transportSecurityHeaders(false)).toEqual({});
  });
});

describe("PERMISSIONS_POLICY", () => {
  it("denies the powerful features the app never uses", () => {
    for (const feature of ["camera", "microphone", "geolocation", "payment", "usb", "serial", "hid"]) {
      expect(PERMISSIONS_POLICY.split(", ")).toContain(`${feature}=()`);
    }
  });
});

describe("jsonSecurityHeaders", () => {
  it("keeps JSON to the app's own pages and inert when opened as a document", () => {
    expect(jsonSecurityHeaders({ allowedOrigins: [] })).toEqual({
      "Content-Security-Policy": "default-src 'none'; frame-ancestors 'self'",
      "Cross-Origin-Resource-Policy": "same-origin",
      "Referrer-Policy": "same-origin",
      "X-Content-Type-Options": "nosniff",
    });
  });
});

describe("next.config.mjs's static headers", () => {
  async function staticHeaders(source: string): Promise<Record<string, string>> {
    const configFile = pathToFileURL(join(process.cwd(), "next.config.mjs")).href;
    const { default: nextConfig } = (await import(configFile)) as { default: NextConfig };
    const rule = (await nextConfig.headers!()).find((entry) => entry.source === source);
    return Object.fromEntries(rule!.headers.map(({ key, value }) => [key, value]));
  }

  it("say under everything what pages and JSON say, for answers no code of ours writes", async () => {
    const page = documentSecurityHeaders({ nonce: "n", allowedOrigins: [], https: false });
    expect(await staticHeaders("/:path*")).toEqual({
      "Referrer-Policy": page["Referrer-Policy"],
      "X-Content-Type-Options": page["X-Content-Type-Options"],
    });
    expect(await staticHeaders("/_next/:path*")).toEqual({
      "Cross-Origin-Resource-Policy": jsonSecurityHeaders({ allowedOrigins: [] })[
        "Cross-Origin-Resource-Policy"
      ],
      "X-Content-Type-Options": "nosniff",
    });
  });

  it("let any portal load embed.js, with CORS for an integrity check, cached briefly", async () => {
    expect(await staticHeaders("/embed.js")).toEqual({
      "Access-Control-Allow-Origin": "*",
      "Cross-Origin-Resource-Policy": "cross-origin",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "public, max-age=300",
    });
  });

  it("serve embed.js's TypeScript declarations the same way, as text", async () => {
    expect(await staticHeaders("/embed.d.ts")).toEqual({
      ...(await staticHeaders("/embed.js")),
      "Content-Type": "text/plain; charset=utf-8",
    });
  });
});
