import { text, type SandboxResponse } from "./http";
import type { TokenErrorCode } from "./token-endpoint";

export const ERROR_PAGE_PATH = "/__sandbox/errors";

const EXPLANATIONS: Record<TokenErrorCode, string> = {
  invalid_request:
    "The request is missing a mandatory parameter (grant_type, client_id or client_secret), repeats one, authenticates the client both with a Basic Authorization header and with client_secret in the body, or its body is not form-encoded (Content-Type: application/x-www-form-urlencoded) or is over 8 KiB.",
  unsupported_grant_type: "Only the client credentials flow is offered: send grant_type=client_credentials.",
  invalid_client:
    "The client_id is not known, the client_secret does not match it, or the Basic Authorization header is not base64(client_id:client_secret) with both parts form-encoded. Check the credentials issued to the partner.",
};

export function errorPage(): SandboxResponse {
  const sections = Object.entries(EXPLANATIONS)
    .map(([code, explanation]) => `<section id="${code}"><h2>${code}</h2><p>${explanation}</p></section>`)
    .join("\n");
  return text(
    200,
    "text/html; charset=utf-8",
    `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Token endpoint errors</title></head>
<body>
<h1>Token endpoint errors</h1>
${sections}
</body>
</html>
`,
  );
}
