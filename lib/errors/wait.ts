/**
 * The refusals that say how long to wait (pt-BR), from the seconds the refusal carries: never parsed from a
 * string. Client-safe.
 */

/** Too many failed attempts at a password or a second factor: the account's door is shut for a while. */
export function lockedMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Muitas tentativas sem sucesso. Por segurança, aguarde ${minutes} ${minutes === 1 ? "minuto" : "minutos"} e tente novamente.`;
}

/** A person's or an integration's budget of requests is spent for now (lib/dal/limits.ts). */
export function limitedMessage(retryAfterSeconds: number): string {
  const wait =
    retryAfterSeconds < 60
      ? `${retryAfterSeconds} segundo${retryAfterSeconds === 1 ? "" : "s"}`
      : `${Math.ceil(retryAfterSeconds / 60)} minuto${retryAfterSeconds <= 60 ? "" : "s"}`;
  return `Muitos pedidos em pouco tempo. Aguarde ${wait} e tente novamente.`;
}
