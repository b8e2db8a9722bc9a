import { NextRequest } from "next/server";
import { describe, expect, it, vi } from "vitest";
import { proxy } from "./proxy";

const PORTAL = "https://portal.partner.example";

vi.mock("@/lib/env", () => ({
  getConfig: () => ({
    embed: { allowedOrigins: [PORTAL] },
    publicUrl: "http://app.test",
    publicUrlConfigured: true,
  }),
}));
// Whatever lib/http/forwarded.ts decides (trusted proxies), the proxy must follow it.
vi.mock("@/lib/http/forwarded", () => ({
  isHttpsRequest: (headers: Headers) => headers.get("x-test-https") === "yes",
  clientAddress: () => "203.0.113.7",
  forwardedHost: () => null,
}));

const request = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  new NextRequest(`http://app.test${path}`, { method, headers });
const signedIn = { cookie: "authjs.session-token=x" };
const nonceOf = (policy: string | null) => /'nonce-([^']+)'/.exec(policy ?? "")?.[1];

describe("proxy", () => {
  it("renders each page with a fresh nonce, the same in the answer's policy and the one Next.js reads", async () => {
    const first = await proxy(request("/sales", { ...signedIn, "content-security-policy": "script-src *" }));
    const second = await proxy(request("/sales", signedIn));
    const policy = first.headers.get("content-security-policy");
    // NextResponse.next({ request }) hands the overridden request headers to Next.js this way.
    expect(first.headers.get("x-middleware-request-content-security-policy")).toBe(policy);
    expect(nonceOf(policy)).toBeTruthy();
    expect(nonceOf(second.headers.get("content-security-policy"))).not.toBe(nonceOf(policy));
    expect(policy).toContain(`frame-ancestors 'self' ${PORTAL}`);
    expect(first.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  });

  it("still sends a visitor without a session cookie to sign in, with the same headers", async () => {
    const response = await proxy(request("/sales?page=2"));
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("http://app.test/sign-in?callbackUrl=%2Fsales%3Fpage%3D2");
    expect(nonceOf(response.headers.get("content-security-policy"))).toBeTruthy();
  });

  it("sends a visitor without a session cookie from the dashboard to sign in and back", async () => {
    const response = await proxy(request("/dashboard?period=7d"));
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(
      "http://app.test/sign-in?callbackUrl=%2Fdashboard%3Fperiod%3D7d",
    );
  });

  it("adds HSTS and upgrade-insecure-requests only to what came over https, refusals included", async () => {
    const https = { "x-test-https": "yes" };
    const answers = [
      await proxy(request("/", { ...signedIn, ...https })),
      await proxy(request("/")),
      await proxy(request("/", { ...https, "content-length": "99999999" }, "POST")),
      await proxy(request("/", { ...https, "next-action": "x", origin: "https://evil.example" }, "POST")),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 307, 413, 403]);
    const [page, plain, refused, crossSite] = answers;
    expect(crossSite?.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(page?.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(page?.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
    expect(refused?.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(refused?.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(plain?.headers.get("strict-transport-security")).toBeNull();
    expect(plain?.headers.get("content-security-policy")).not.toContain("upgrade-insecure-requests");
  });

  it("refuses a server action another site posted, with the routes' answer and a security log line", async () => {
    const writes: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((line) => {
      writes.push(String(line));
      return true;
    });
    try {
      const action = { ...signedIn, "next-action": "0".repeat(42), "content-length": "10" };
      const crossSite = await proxy(request("/sales", { ...action, "sec-fetch-site": "cross-site" }, "POST"));
      expect(crossSite.status).toBe(403);
      expect(await crossSite.json()).toMatchObject({ error: "cross_site" });
      const forgedOrigin = await proxy(
        request("/embed", { ...action, origin: "https://evil.example" }, "POST"),
      );
      expect(forgedOrigin.status).toBe(403);
      // Refused again, but said once every few minutes per address and path: a loop cannot flood the log.
      expect(
        (await proxy(request("/sales", { ...action, origin: "https://evil.example" }, "POST"))).status,
      ).toBe(403);
      // The app's own form, and a page view with another site's referrer, pass.
      const own = await proxy(
        request("/sales", { ...action, origin: "http://app.test", host: "app.test" }, "POST"),
      );
      expect(own.status).toBe(200);
      expect((await proxy(request("/sales", { ...signedIn, "sec-fetch-site": "cross-site" }))).status).toBe(
        200,
      );
    } finally {
      write.mockRestore();
    }
    const lines = writes.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual(
      ["/sales", "/embed"].map((path) =>
        expect.objectContaining({
          event: "access.refused",
          reason: "cross_site",
          address: "203.0.113.7",
          path,
        }),
      ),
    );
  });
});
