/**
 * Why a sign-in through the partner's identity provider (OIDC) did not end in a session, and what the sign-in page
 * says for each. Apart from lib/errors, part of which the sale form and the frame carry to the browser: only the
 * sign-in page, rendered on the server, reads these.
 */
export type OidcErrorCode =
  | "oidc_unreachable"
  | "oidc_cancelled"
  | "oidc_state_mismatch"
  | "oidc_failed"
  | "oidc_misconfigured"
  | "oidc_email_missing"
  | "oidc_email_unverified"
  | "oidc_domain_refused"
  | "oidc_account_disabled"
  | "oidc_not_registered"
  | "oidc_account_conflict";

export const OIDC_MESSAGES: Readonly<Record<OidcErrorCode, string>> = {
  oidc_unreachable:
    "Não conseguimos falar com o login da sua empresa agora. Tente novamente em instantes; se continuar, avise o suporte.",
  oidc_cancelled: "A entrada pelo login da sua empresa foi cancelada. Para entrar, use o botão novamente.",
  oidc_state_mismatch:
    "Esta entrada expirou ou não começou neste navegador. Use o botão de entrada novamente, nesta mesma janela.",
  oidc_failed:
    "Não foi possível concluir a entrada pelo login da sua empresa. Tente novamente; se continuar, avise o suporte.",
  oidc_misconfigured:
    "O login da sua empresa recusou este Partner Sales: há um problema na configuração do provedor de identidade. Tentar de novo não resolve; avise o suporte.",
  oidc_email_missing:
    "O login da sua empresa não informou o seu e-mail, e sem ele não é possível entrar. Avise o suporte.",
  oidc_email_unverified:
    "O login da sua empresa não confirmou o seu e-mail, então não é possível ligá-lo à sua conta. Avise o suporte.",
  oidc_domain_refused:
    "O domínio do seu e-mail não tem acesso a este Partner Sales. Entre com a conta da empresa parceira ou fale com o seu supervisor.",
  oidc_account_disabled: "Sua conta do Partner Sales está desativada. Fale com o seu supervisor.",
  oidc_not_registered:
    "Sua conta ainda não foi cadastrada no Partner Sales. Peça ao seu supervisor para cadastrar o seu e-mail e tente novamente.",
  oidc_account_conflict:
    "Já existe uma conta do Partner Sales com este e-mail, que entra por outro caminho. Peça ao suporte para ligá-la ao login da sua empresa.",
};
