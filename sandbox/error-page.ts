import { text, type SandboxResponse } from "./http";
import type { TokenErrorCode } from "./token-endpoint";

export const ERROR_PAGE_PATH = "/__sandbox/errors";

const EXPLANATIONS: Record<TokenErrorCode, string> = {
  invalid_request:
    "Falta um parâmetro obrigatório (grant_type, client_id ou client_secret), um parâmetro veio repetido, o cliente se autenticou ao mesmo tempo pelo cabeçalho Authorization Basic e pelo client_secret no corpo, ou o corpo não é form-encoded (Content-Type: application/x-www-form-urlencoded) ou passa de 8 KiB.",
  unsupported_grant_type: "Só o fluxo client credentials é oferecido: envie grant_type=client_credentials.",
  invalid_client:
    "O client_id não é conhecido, o client_secret não confere com ele, ou o cabeçalho Authorization Basic não é base64(client_id:client_secret) com as duas partes form-encoded. Confira as credenciais emitidas para o parceiro.",
};

export function errorPage(): SandboxResponse {
  const sections = Object.entries(EXPLANATIONS)
    .map(([code, explanation]) => `<section id="${code}"><h2>${code}</h2><p>${explanation}</p></section>`)
    .join("\n");
  return text(
    200,
    "text/html; charset=utf-8",
    `<!DOCTYPE html>
<html lang="pt-BR">
<head><meta charset="utf-8"><title>Erros do endpoint de token</title></head>
<body>
<h1>Erros do endpoint de token</h1>
${sections}
</body>
</html>
`,
  );
}
