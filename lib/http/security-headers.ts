import { frameAncestors } from "@/lib/framing";

// Every security header the app sends is built here: proxy.ts (pages), lib/http/json.ts (JSON routes), the
// Auth.js route wrapper. next.config.mjs repeats the few values static files get (security-headers.test.ts checks).

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;

// Powerful features the app never uses: a script that slipped in cannot use them, nor can anything framed later.
// Only names Chromium knows: an unknown one ("bluetooth", for one) is a console warning on every page.
const DENIED_FEATURES = [
  "accelerometer",
  "camera",
  "clipboard-read",
  "clipboard-write",
  "display-capture",
  "geolocation",
  "gyroscope",
  "hid",
  "idle-detection",
  "magnetometer",
  "microphone",
  "midi",
  "payment",
  "screen-wake-lock",
  "serial",
  "usb",
  "xr-spatial-tracking",
];

export const PERMISSIONS_POLICY = DENIED_FEATURES.map((feature) => `${feature}=()`).join(", ");

// No URL of ours goes to another origin in a Referer: history filters and sale ids are the partner's business.
// (public/embed.js sets referrerPolicy "origin" on the portal's side, which this header does not touch.)
const REFERRER_POLICY = "same-origin";

export interface FramingOptions {
  /** EMBED_ALLOWED_ORIGINS: the portals that may frame the app. */
  allowedOrigins: readonly string[];
}

export interface DocumentOptions extends FramingOptions {
  /** Fresh for every response: see createNonce. */
  nonce: string;
  /** Whether the browser reached the app over https (lib/http/forwarded.ts decides). */
  https: boolean;
  /** `next dev` only: React's debugging needs eval and Next.js's overlay injects styles. */
  development?: boolean;
}

/** 128 random bits in base64, for one response's Content-Security-Policy and nothing else. */
export function createNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/**
 * The page policy. Scripts run only with this response's nonce (Next.js stamps it on its own) or when such a
 * script loads them ('strict-dynamic'). No 'unsafe-inline' or https: fallback for browsers without
 * 'strict-dynamic': every browser Next.js 16 supports has it, and the older ones cannot run the app anyway.
 * Styles need no inline attribute: Tailwind is one stylesheet, and React sets style props through the DOM.
 */
export function contentSecurityPolicy({
  nonce,
  allowedOrigins,
  https,
  development = false,
}: DocumentOptions) {
  const directives = [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    development ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    frameAncestors(allowedOrigins),
  ];
  // Over plain http it would "upgrade" the app's own requests to an https nobody serves.
  if (https) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

/** HSTS only on an answer that came over https: browsers ignore it over http, and a test run must not pin it. */
export function transportSecurityHeaders(https: boolean): Record<string, string> {
  return https ? { "Strict-Transport-Security": `max-age=${ONE_YEAR_SECONDS}; includeSubDomains` } : {};
}

/** Every HTML page (and whatever else proxy.ts answers: redirects, the icon). */
export function documentSecurityHeaders(
  options: DocumentOptions,
): { "Content-Security-Policy": string } & Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(options),
    // Severs window.opener both ways with other origins' windows. Browsers ignore it in frames, so /embed inside
    // a portal is unaffected; the app opens no window it needs to talk to ("open in a new tab" is noopener).
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": PERMISSIONS_POLICY,
    "Referrer-Policy": REFERRER_POLICY,
    "X-Content-Type-Options": "nosniff",
    ...transportSecurityHeaders(options.https),
  };
}

/**
 * JSON answers: only this app's pages read them, so no other origin may load one (CORP), and one opened as a
 * document runs nothing and may be framed only where a page may.
 */
export function jsonSecurityHeaders({ allowedOrigins }: FramingOptions): Record<string, string> {
  return {
    "Content-Security-Policy": `default-src 'none'; ${frameAncestors(allowedOrigins)}`,
    "Cross-Origin-Resource-Policy": "same-origin",
    "Referrer-Policy": REFERRER_POLICY,
    "X-Content-Type-Options": "nosniff",
  };
}
