import { NextRequest } from "next/server";
import { describe, expect, it, vi } from "vitest";
import { proxy } from "./proxy";

const PORTAL = "https://portal.partner.example";

vi.mock("@/lib/env", () => ({ getConfig: () => ({ embed: { allowedOrigins: [PORTAL] } }) }));
// Whatever lib/http/forwarded.ts decides (trusted proxies), the proxy must follow it.
vi.mock("@/lib/http/forwarded", () => ({
  isHttpsRequest: (headers: Headers) => headers.get("x-test-https") === "yes",
}));

const request = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  new NextRequest(`http://app.test${path}`, { method, headers });
const signedIn = { cookie: "authjs.session-token=x" };
const nonceOf = (policy: string | null) => /'nonce-([^']+)'/.exec(policy ?? "")?.[1];

describe("proxy", () => {
  it("renders each page with a fresh nonce, the same in the answer's policy and the one Next.js reads", () => {
    const first = proxy(request("/sales", { ...signedIn, "content-security-policy": "script-src *" }));
    const second = proxy(request("/sales", signedIn));
    const policy = first.headers.get("content-security-policy");
    // NextResponse.next({ request }) hands the overridden request headers to Next.js this way.
    expect(first.headers.get("x-middleware-request-content-security-policy")).toBe(policy);
    expect(nonceOf(policy)).toBeTruthy();
    expect(nonceOf(second.headers.get("content-security-policy"))).not.toBe(nonceOf(policy));
    expect(policy).toContain(`frame-ancestors 'self' ${PORTAL}`);
    expect(first.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  });

  it("still sends a visitor without a session cookie to sign in, with the same headers", () => {
    const response = proxy(request("/sales?page=2"));
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("http://app.test/sign-in?callbackUrl=%2Fsales%3Fpage%3D2");
    expect(nonceOf(response.headers.get("content-security-policy"))).toBeTruthy();
  });

  it("sends a visitor without a session cookie from the dashboard to sign in and back", () => {
    const response = proxy(request("/dashboard?period=7d"));
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(
      "http://app.test/sign-in?callbackUrl=%2Fdashboard%3Fperiod%3D7d",
    );
  });

  it("adds HSTS and upgrade-insecure-requests only to what came over https, refusals included", () => {
    const https = { "x-test-https": "yes" };
    const answers = [
      proxy(request("/", { ...signedIn, ...https })),
      proxy(request("/")),
      proxy(request("/", { ...https, "content-length": "99999999" }, "POST")),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 307, 413]);
    const [page, plain, refused] = answers;
    expect(page?.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(page?.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
    expect(refused?.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(refused?.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    expect(plain?.headers.get("strict-transport-security")).toBeNull();
    expect(plain?.headers.get("content-security-policy")).not.toContain("upgrade-insecure-requests");
  });
});
