import { expect, type Page } from "@playwright/test";
import { ALLOWED_PORTAL } from "./environment";

/** A Content-Security-Policy header as directive → sources, in the order sent. */
export function parsePolicy(header: string | undefined): Record<string, string[]> {
  const policy: Record<string, string[]> = {};
  for (const directive of (header ?? "").split(";")) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    if (name) policy[name] = sources;
  }
  return policy;
}

/** The page policy the app promises over plain http, with the nonce it carries. */
export function expectStrictPagePolicy(header: string | undefined): string {
  const policy = parsePolicy(header);
  const nonce = /^'nonce-([A-Za-z0-9+/=]{22,})'$/.exec(policy["script-src"]?.[0] ?? "")?.[1];
  expect(nonce, `a nonce in ${header}`).toBeTruthy();
  expect(policy).toEqual({
    "default-src": ["'self'"],
    "script-src": [`'nonce-${nonce}'`, "'strict-dynamic'"],
    "style-src": ["'self'", `'nonce-${nonce}'`],
    "img-src": ["'self'"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'self'", ALLOWED_PORTAL],
  });
  return nonce!;
}

/** A page's or an API request's answer: only its headers are read. */
interface Answer {
  headers(): Record<string, string>;
}

/** Everything a page's answer carries besides its policy, over plain http (so no HSTS). */
export function expectPageHeaders(response: Answer) {
  const headers = response.headers();
  expect(headers["cross-origin-opener-policy"]).toBe("same-origin");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("same-origin");
  for (const feature of ["camera", "microphone", "geolocation", "payment", "usb", "serial", "hid"]) {
    expect(headers["permissions-policy"]).toContain(`${feature}=()`);
  }
  expect(headers["strict-transport-security"]).toBeUndefined();
}

/** What a JSON answer carries: readable by the app's own pages only, inert if opened as a document. */
export function expectJsonHeaders(response: Answer) {
  const headers = response.headers();
  expect(headers["content-type"]).toMatch(/^application\/json/);
  expect(headers["cross-origin-resource-policy"]).toBe("same-origin");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["content-security-policy"]).toBe(
    `default-src 'none'; frame-ancestors 'self' ${ALLOWED_PORTAL}`,
  );
}

export interface PolicyReports {
  /** `securitypolicyviolation` events, from every document the page has shown since `watchPolicy`. */
  violations: string[];
  /** Console lines about a Content-Security-Policy or Permissions-Policy (Chromium's own complaints). */
  consoleLines: string[];
}

/**
 * Collects, across navigations, every policy violation the page's documents report and every console line
 * Chromium writes about a policy. Call before the first navigation.
 */
export async function watchPolicy(page: Page): Promise<PolicyReports> {
  const reports: PolicyReports = { violations: [], consoleLines: [] };
  await page.exposeFunction("reportPolicyViolation", (line: string) => reports.violations.push(line));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { reportPolicyViolation: (line: string) => void })
        .reportPolicyViolation;
      report(`${location.pathname}: ${event.effectiveDirective} ${event.blockedURI} ${event.sample}`);
    });
  });
  page.on("console", (message) => {
    if (/Content.Security.Policy|Permissions.Policy/i.test(message.text())) {
      reports.consoleLines.push(message.text());
    }
  });
  return reports;
}
