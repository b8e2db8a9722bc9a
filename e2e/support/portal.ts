import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { SignJWT } from "jose";
import { E2E_PORTS } from "./environment";
import { PORTAL, type StandInPortal } from "./portal-keys";

const APP = `http://localhost:${E2E_PORTS.app}`;

const PAGE = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Portal do parceiro</title>
<script src="${APP}/embed.js"></script></head>
<body><main><h1>Portal do parceiro</h1><div id="partner-sales"></div><div id="others"></div></main>
<script>
  window.events = [];
  window.tokenRequests = 0;
  // deferToken: the token is a function whose promise the test settles with giveToken(token).
  window.mountPartnerSales = function (options) {
    var mountOptions = Object.assign({
      src: "${APP}/embed",
      onEvent: function (event) { window.events.push(event); },
    }, options);
    if (options.deferToken) {
      delete mountOptions.deferToken;
      mountOptions.token = function () {
        window.tokenRequests += 1;
        return new Promise(function (resolve) { window.giveToken = resolve; });
      };
    }
    window.handle = PartnerSales.mount(document.getElementById("partner-sales"), mountOptions);
    window.handle.iframe.addEventListener("load", function () { window.frameLoads = (window.frameLoads || 0) + 1; });
  };
  // Another frame on this page (same origin or not): not the app's parent, so not the portal.
  window.addFrame = function (src) {
    return new Promise(function (resolve) {
      var frame = document.createElement("iframe");
      frame.title = "outro quadro";
      frame.src = src;
      frame.onload = function () { resolve(); };
      document.getElementById("others").appendChild(frame);
    });
  };
</script></body></html>`;

// A frame that posts a token to every frame of its parent page from the app's origin, as a script sharing the
// portal's page (an ad, a widget) could.
const OTHER_FRAME = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Outro quadro</title></head><body>
<script>
  window.postToken = function (token) {
    for (var i = 0; i < parent.frames.length; i++) {
      parent.frames[i].postMessage({ type: "partner-sales:token", token: token }, "${APP}");
    }
  };
</script></body></html>`;

/** A partner portal page on its own origin, serving a page that mounts the app with embed.js. */
export function startPortal(port: number): Promise<Server> {
  const server = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(request.url === "/other-frame" ? OTHER_FRAME : PAGE);
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

export interface TokenOptions {
  issuedAt?: number;
  lifetime?: number;
  /** The backend that signs it; its issuer and algorithm unless given. */
  signer?: StandInPortal;
  issuer?: string;
  audience?: string;
  type?: string;
}

/** What the portal's backend does: sign who the agent is, for one sign-in within 5 minutes. */
export function signPortalToken(
  claims: {
    sub?: string;
    email?: string;
    name?: string;
    role?: string;
    prefill?: Record<string, string>;
  } = {},
  {
    issuedAt = Math.floor(Date.now() / 1000),
    lifetime = 120,
    signer = PORTAL,
    issuer = signer.issuer,
    audience = "partner-sales",
    type = "partner-sales-embed+jwt",
  }: TokenOptions = {},
): Promise<string> {
  const sub = claims.sub ?? `partner-agent-${randomUUID().slice(0, 8)}`;
  return new SignJWT({
    email: claims.email ?? `${sub}@portal.example`,
    name: claims.name ?? "Agente do Portal",
    ...(claims.role ? { role: claims.role } : {}),
    ...(claims.prefill ? { prefill: claims.prefill } : {}),
  })
    .setProtectedHeader({ alg: signer.alg, typ: type })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifetime)
    .setJti(randomUUID())
    .sign(signer.signingKey);
}
