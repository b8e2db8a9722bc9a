/**
 * Every code the frame may post, with its pt-BR message: the server's table (lib/errors/index.ts answers with it,
 * and the /embed page passes one message to the frame). Client code imports lib/errors/embed-frame instead.
 */
export * from "./embed-frame";
import { FRAME_OWN_MESSAGES, type EmbedErrorCode, type EmbedProblemCause } from "./embed-frame";

export const EMBED_ERROR_MESSAGES: Record<EmbedErrorCode, string> = {
  ...FRAME_OWN_MESSAGES,
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
  token_in_url:
    "Acesso recusado: o portal enviou o acesso no endereço da página, o que não é mais aceito por segurança. Avise o suporte do portal para atualizar a integração.",
  session_missing:
    "Você não está conectado. Abra a venda novamente pelo portal ou entre pela página de entrada do Partner Sales.",
  session_cookie_blocked:
    "Seu navegador não guardou a sessão dentro do portal porque bloqueia cookies de terceiros. Use o Partner Sales em uma nova aba ou permita cookies para este site.",
};

/** Any code with its message from the whole table, for a page to hand to the frame. */
export function embedProblem(code: EmbedErrorCode): EmbedProblemCause {
  return { code, message: EMBED_ERROR_MESSAGES[code] };
}
