/**
 * Typed errors with a stable code. Messages are for operators and logs; what a person reads is chosen
 * from the code in one place (`userMessageFor`), so internals never leak into a response.
 */
export type ErrorCode =
  | "partner_api.invalid_client"
  | "partner_api.token_rejected"
  | "partner_api.token_unreachable"
  | "partner_api.token_unavailable"
  | "partner_api.backing_off";

export class AppError extends Error {
  override readonly name: string = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const USER_MESSAGES: Record<ErrorCode, string> = {
  "partner_api.invalid_client":
    "Serviço indisponível (credenciais do parceiro recusadas). Avise o suporte; nada foi enviado.",
  "partner_api.token_rejected": "Serviço indisponível (autenticação). Avise o suporte; nada foi enviado.",
  "partner_api.token_unreachable": "Serviço indisponível no momento. Nada foi enviado; tente novamente.",
  "partner_api.token_unavailable": "Serviço indisponível no momento. Nada foi enviado; tente novamente.",
  "partner_api.backing_off":
    "Serviço indisponível no momento. Nada foi enviado; tente novamente em instantes.",
};

export function userMessageFor(code: ErrorCode): string {
  return USER_MESSAGES[code];
}
