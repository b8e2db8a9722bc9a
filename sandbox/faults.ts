import { text, type SandboxReply } from "./http";

export const FAULT_KINDS = ["500", "503", "timeout", "malformed", "html"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const TARGETS = ["sale", "token"] as const;
export type Target = (typeof TARGETS)[number];

const PROXY_ERROR_PAGE = `<!DOCTYPE html>
<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

export function faultReply(kind: FaultKind): SandboxReply {
  switch (kind) {
    case "500":
      return text(500, "text/plain; charset=utf-8", "Internal Server Error");
    case "503":
      return text(503, "text/plain; charset=utf-8", "Service Unavailable");
    case "timeout":
      return "hang";
    case "malformed":
      // Cut off mid-object, as when a response is truncated on the way.
      return text(200, "application/json; charset=utf-8", '{"data": true, "message": "Venda de parceiro reg');
    case "html":
      return text(502, "text/html; charset=utf-8", PROXY_ERROR_PAGE);
  }
}
