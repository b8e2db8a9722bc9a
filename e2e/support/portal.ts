import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { SignJWT } from "jose";
import { E2E_PORTS, EMBED_SSO_SECRET } from "./environment";

const APP = `http://localhost:${E2E_PORTS.app}`;

const PAGE = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Portal do parceiro</title>
<script src="${APP}/embed.js"></script></head>
<body><h1>Portal do parceiro</h1><div id="partner-sales"></div>
<script>
  window.events = [];
  window.mountPartnerSales = function (options) {
    window.handle = PartnerSales.mount(document.getElementById("partner-sales"), Object.assign({
      src: "${APP}/embed",
      onEvent: function (event) { window.events.push(event); },
    }, options));
  };
</script></body></html>`;

/** A partner portal page on its own origin, serving a page that mounts the app with embed.js. */
export function startPortal(port: number): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(PAGE);
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

/** What the portal's backend does: sign who the agent is, for one sign-in within 5 minutes. */
export function signEmbedToken(
  claims: { sub?: string; email?: string; name?: string; prefill?: Record<string, string> } = {},
  { issuedAt = Math.floor(Date.now() / 1000), lifetime = 120, secret = EMBED_SSO_SECRET } = {},
): Promise<string> {
  const sub = claims.sub ?? `partner-agent-${randomUUID().slice(0, 8)}`;
  return new SignJWT({
    email: claims.email ?? `${sub}@portal.example`,
    name: claims.name ?? "Agente do Portal",
    ...(claims.prefill ? { prefill: claims.prefill } : {}),
  })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifetime)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(secret));
}
