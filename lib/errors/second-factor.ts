/** What people read about second factors and password changes (pt-BR). Client-safe: plain strings. */
export const FACTOR_MESSAGES = {
  totpInvalid: "Código incorreto. Confira o código atual no aplicativo autenticador e digite os 6 números.",
  totpReplayed:
    "Esse código já foi usado. Aguarde o próximo código no aplicativo (ele muda a cada 30 segundos).",
  recoveryInvalid: "Código de recuperação incorreto ou já usado. Cada código serve uma única vez.",
  keyInvalid: "A chave de segurança não foi aceita. Tente de novo ou use outra forma de verificação.",
  keyCancelled: "A verificação com a chave de segurança foi cancelada ou não respondeu a tempo.",
  keyUnsupported:
    "Este navegador não aceita chaves de segurança. Use o aplicativo autenticador ou um código de recuperação.",
  enrolmentExpired: "O cadastro expirou. Comece de novo.",
  enrolInvalidCode: "Código incorreto. Digite os 6 números que o aplicativo mostra agora para esta conta.",

  passwordsDiffer: "As duas senhas não são iguais.",
  samePassword: "A nova senha precisa ser diferente da atual.",
  currentPasswordWrong: "Senha atual incorreta.",
  lastFactor: "Cadastre outro fator antes de remover este: a sua conta precisa de uma segunda verificação.",
} as const;

export type FactorMessageCode = keyof typeof FACTOR_MESSAGES;
