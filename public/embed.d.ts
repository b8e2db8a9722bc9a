/*! Partner Sales embed — TypeScript declarations for embed.js (https://<partner-sales>/embed.d.ts).
 *  Save this file in the portal's project and reference it, e.g. `/// <reference path="./partner-sales-embed.d.ts" />`:
 *  embed.js is a classic script, so `PartnerSales` (and `window.PartnerSales`) is a global.
 */

declare namespace PartnerSales {
  /**
   * The sale form's fields, as the agent would type them. Checked like typing, never submitted by themselves;
   * unknown fields are dropped.
   */
  interface Prefill {
    /** The customer's CPF, digits or formatted (529.982.247-25). */
    customerDocument?: string;
    customerName?: string;
    customerEmail?: string;
    /** DDD and number, digits or formatted: (11) 98765-4321. */
    customerPhone?: string;
    /** A plan's id (UUID) from the app's catalogue. */
    planId?: string;
    /** DD/MM/AAAA or AAAA-MM-DD. */
    birthDate?: string;
    /** The customer's id in the portal, up to 100 characters: it comes back in `partner-sales:submitted`. */
    externalId?: string;
    /** The call's recording id from the portal's dialer (letters, digits, `. _ : / # -`, up to 100); the form
     *  shows it with plans that carry an offer script, and records it with the sale's evidence. */
    recordingId?: string;
  }

  /**
   * The form in the portal's look. Each setting is optional and checked by the app: one that does not pass is
   * ignored (the app's own look stays for it) and reported as `partner-sales:warning`.
   */
  interface Appearance {
    /**
     * `#rgb` or `#rrggbb`: the buttons (under white text) and the links. It must reach 4.5:1 against white (WCAG AA),
     * or `appearance_low_contrast`.
     */
    brandColor?: string;
    /** The corners of fields, buttons and notices, in pixels: a whole number from 0 to 16. */
    radius?: number;
    /**
     * Up to four family names, comma-separated, of letters, digits, spaces and hyphens, a generic family (`serif`,
     * `sans-serif`, `system-ui`…) last if any: "Inter, Arial, sans-serif". The frame loads no web fonts, so a name
     * is used only where the font is installed on the agent's computer.
     */
    fontFamily?: string;
  }

  /** The signed token from the portal's backend, or a function giving (a promise of) a fresh one each time. */
  type TokenSource = string | (() => string | null | undefined | PromiseLike<string | null | undefined>);

  interface MountOptions {
    /** The app's /embed address, e.g. "https://partner-sales.example/embed". Never with a token in it. */
    src: string;
    /** Signs the agent in; without it, the frame uses its own session or asks the agent to sign in. */
    token?: TokenSource;
    /** Sent once the form is ready (after the token's own prefill). */
    prefill?: Prefill;
    /** Every event the frame posts, after embed.js has followed `partner-sales:resize`. */
    onEvent?: (event: FrameEvent) => void;
    /** The iframe's title. Default "Partner Sales: nova venda". */
    title?: string;
    /** The iframe's height in pixels until the frame reports its own. Default 640. */
    initialHeight?: number;
    appearance?: Appearance;
  }

  interface Handle {
    readonly iframe: HTMLIFrameElement;
    /** Fills the form for the next customer: applied when no sale is on its way or shown. */
    prefill(fields: Prefill): void;
    /** Removes the iframe and stops listening. */
    unmount(): void;
  }

  /** Why the frame cannot show the form (docs/embedding.md, "Events and error codes", says when each happens). */
  type ErrorCode =
    | "token_malformed"
    | "token_signature_invalid"
    | "token_claims_invalid"
    | "token_misaddressed"
    | "token_expired"
    | "token_replayed"
    | "token_account_disabled"
    | "token_email_domain"
    | "token_account_conflict"
    | "token_not_linked"
    | "token_sign_in_off"
    | "token_not_framed"
    | "token_in_url"
    | "token_unavailable"
    | "session_missing"
    | "session_cookie_blocked"
    | "service_unavailable"
    /** Posted by embed.js, not the frame: the frame never said a word (an origin refused, the app unreachable). */
    | "frame_unavailable";

  type AppearanceSetting = keyof Appearance;

  /** `appearance_invalid`: not in the setting's format; `appearance_low_contrast`: a brand colour under 4.5:1. */
  type WarningCode = "appearance_invalid" | "appearance_low_contrast";

  /** The sale's outcome; more may come, so keep a default branch. */
  type SaleStatus = "accepted" | "rejected" | "failed" | "unknown" | "pending" | (string & {});

  /** The frame has loaded. `awaitingToken`: it waits for the `token` (embed.js sends it); else the form is shown. */
  interface ReadyEvent {
    type: "partner-sales:ready";
    awaitingToken?: true;
  }

  /** The height in pixels of what the frame shows, each time it changes (embed.js sets the iframe's). */
  interface ResizeEvent {
    type: "partner-sales:resize";
    height: number;
  }

  /** A sale was sent and has an outcome. No personal data. */
  interface SubmittedEvent {
    type: "partner-sales:submitted";
    /** The sale's id (UUID). */
    submissionId: string;
    status: SaleStatus;
    /** The prefill's `externalId`, or null. */
    externalId: string | null;
    /** What the agent reads to the customer: ten Crockford base32 characters, as 5-5 with a check ("7K3QF-9XD2M"). */
    protocol: string;
  }

  /** The frame shows a problem instead of the form. */
  interface ErrorEvent {
    type: "partner-sales:error";
    code: ErrorCode;
  }

  /** An appearance setting was ignored; the form works. */
  interface WarningEvent {
    type: "partner-sales:warning";
    code: WarningCode;
    setting: AppearanceSetting;
  }

  type FrameEvent = ReadyEvent | ResizeEvent | SubmittedEvent | ErrorEvent | WarningEvent;

  /** What embed.js posts to the frame (a portal that does without embed.js must do the same). */
  type PortalMessage =
    | { type: "partner-sales:token"; token: string | null }
    | { type: "partner-sales:prefill"; fields: Prefill };

  /** Creates the iframe in `element` and follows its events. Throws without `src`, or with a token in `src`. */
  function mount(element: Element, options: MountOptions): Handle;
}

interface Window {
  PartnerSales: typeof PartnerSales;
}
