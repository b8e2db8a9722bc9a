/**
 * What /embed shows in its frame and posts to its portal as `partner-sales:error {code}` when it cannot go on:
 * the codes (public/embed.d.ts and docs/embedding.md list them; test/embed-declarations.ts fails the type-check when the
 * declarations drift from this list) and their pt-BR messages. Part of the error vocabulary (lib/errors), apart so
 * that the frame's JavaScript carries these messages, not the whole table.
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

export const EMBED_ERROR_MESSAGES: Record<EmbedErrorCode, string> = {
  token_malformed:
    "Acesso recusado: o portal enviou um acesso que não é um token assinado. Avise o suporte do portal.",
  token_signature_invalid:
    "Acesso recusado: a assinatura do acesso não confere com a chave cadastrada para este portal. Avise o suporte do portal.",
  token_claims_invalid:
    "Acesso recusado: o portal assinou o acesso, mas faltam dados do agente ou estão fora do formato (identificador, e-mail, nome, perfil ou validade). Avise o suporte do portal.",
  token_misaddressed:
    "Acesso recusado: ele não foi emitido para o Partner Sales ou vem de um portal não cadastrado. Avise o suporte do portal.",
  token_expired: "O acesso expirou. Abra a venda novamente pelo portal.",
  token_replayed: "Este acesso já foi usado. Abra a venda novamente pelo portal.",
  token_account_disabled: "Acesso pelo portal indisponível para esta conta. Fale com o seu supervisor.",
  token_email_domain:
    "Acesso recusado: o e-mail informado pelo portal não é de um domínio liberado para este portal. Avise o suporte do portal.",
  token_account_conflict:
    "Acesso recusado: já existe uma conta do Partner Sales com este e-mail, que entra por outro caminho. Peça ao suporte para ligar a sua conta a este portal.",
  token_not_linked:
    "Sua conta neste portal ainda não foi liberada no Partner Sales. Peça ao suporte para ligá-la e abra a venda novamente.",
  token_sign_in_off:
    "O acesso pelo portal não está configurado neste Partner Sales. Avise o suporte do portal.",
  token_not_framed:
    "Este acesso só funciona dentro do portal do parceiro. Abra a venda novamente pelo portal.",
  token_in_url:
    "Acesso recusado: o portal enviou o acesso no endereço da página, o que não é mais aceito por segurança. Avise o suporte do portal para atualizar a integração.",
  token_unavailable: "O portal não entregou o acesso. Abra a venda novamente pelo portal.",
  session_missing:
    "Você não está conectado. Abra a venda novamente pelo portal ou entre pela página de entrada do Partner Sales.",
  session_cookie_blocked:
    "Seu navegador não guardou a sessão dentro do portal porque bloqueia cookies de terceiros. Use o Partner Sales em uma nova aba ou permita cookies para este site.",
  service_unavailable:
    "Serviço temporariamente indisponível. Nada foi perdido: tente novamente em instantes (a mesma venda não é duplicada).",
};
