/**
 * What /embed shows in its frame and posts to its portal as `partner-sales:error {code}` when it cannot go on: the
 * codes (public/embed.d.ts and docs/embedding.md list them; test/embed-declarations.ts fails the type-check when the
 * declarations drift from this list), and the messages of the codes the frame's own script decides. The frame's
 * JavaScript carries only this module: a refusal's message comes with the answer that names it (the JSON body of
 * /api/embed/session) or with the page (lib/errors/embed.ts has the whole table).
 */
export const EMBED_ERROR_CODES = [
  "token_malformed",
  "token_signature_invalid",
  "token_claims_invalid",
  "token_misaddressed",
  "token_expired",
  "token_replayed",
  "token_account_disabled",
  "token_email_domain",
  "token_account_conflict",
  "token_not_linked",
  "token_sign_in_off",
  "token_not_framed",
  "token_in_url",
  "token_unavailable",
  "session_missing",
  "session_cookie_blocked",
  "service_unavailable",
] as const;

export type EmbedErrorCode = (typeof EMBED_ERROR_CODES)[number];

/**
 * What embed.js itself reports to the portal, on the portal's side, when the frame never says a word: the browser
 * refused to frame the app for this origin, or could not reach it. The frame shows nothing of ours then.
 */
export const PORTAL_SIDE_ERROR_CODES = ["frame_unavailable"] as const;

export type PortalSideErrorCode = (typeof PORTAL_SIDE_ERROR_CODES)[number];

export function isEmbedErrorCode(code: unknown): code is EmbedErrorCode {
  return (EMBED_ERROR_CODES as readonly unknown[]).includes(code);
}

/** The messages of the codes the frame's script decides itself (no token, no answer, not framed). */
export const FRAME_OWN_MESSAGES = {
  token_not_framed:
    "Este acesso só funciona dentro do portal do parceiro. Abra a venda novamente pelo portal.",
  token_unavailable: "O portal não entregou o acesso. Abra a venda novamente pelo portal.",
  service_unavailable:
    "Serviço temporariamente indisponível. Nada foi perdido: tente novamente em instantes (a mesma venda não é duplicada).",
} as const satisfies Partial<Record<EmbedErrorCode, string>>;

/**
 * Why the frame cannot go on: the code the portal is told and the message the agent reads, built together by
 * frameOwnProblem here or embedProblem (lib/errors/embed.ts) on the server, so a code never travels with another's.
 */
export type EmbedProblemCause = { readonly code: EmbedErrorCode; readonly message: string };

/** One of the frame's own codes with its message. */
export function frameOwnProblem(code: keyof typeof FRAME_OWN_MESSAGES): EmbedProblemCause {
  return { code, message: FRAME_OWN_MESSAGES[code] };
}
