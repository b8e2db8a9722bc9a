import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider, { type ClientMetadata, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import { IDP } from "./environment";

/** A person with an account at the test IdP. */
export interface IdpUser {
  username: string;
  password: string;
  sub: string;
  email: string;
  emailVerified: boolean;
  name: string;
  roles: string[];
}

const user = (username: string, name: string, domain: string, roles: string[] = []): IdpUser => ({
  username,
  password: `${username}-senha-idp`,
  sub: `idp-${username}`,
  email: `${username}@${domain}`,
  emailVerified: true,
  name,
  roles,
});

// Role values as a Keycloak realm sends them (realm_access.roles, OIDC_ROLE_CLAIM in playwright.config.ts).
export const IDP_USERS = {
  agent: user("ana", "Ana Pereira", "parceira.example", ["offline_access"]),
  supervisor: user("bruno", "Bruno Costa", "parceira.example", ["offline_access", IDP.supervisorRole]),
  outsider: user("carla", "Carla Dias", "outra.example"),
  toBeDisabled: user("diego", "Diego Alves", "parceira.example"),
  /** Added by an operator (with OIDC_AUTO_CREATE=off), then linked on the first sign-in. */
  preRegistered: user("elisa", "Elisa Moura", "parceira.example"),
  unverified: { ...user("fabio", "Fábio Ramos", "parceira.example"), emailVerified: false },
  // e2e/identity.spec.ts: the doors' own people.
  /** Created by the IdP, whose e-mail a portal then names. */
  gabriela: user("gabriela", "Gabriela Nunes", "parceira.example"),
  /** A supervisor at the IdP whose e-mail a portal names first. */
  heitor: user("heitor", "Heitor Lima", "parceira.example", [IDP.supervisorRole]),
  /** Has a password account the IdP adopts (OIDC_ADOPT_PASSWORD_ACCOUNTS). */
  ines: user("ines", "Inês Prado", "parceira.example"),
  /** Signs in through the IdP and, once an operator links it, through a portal. */
  joao: user("joao", "João Reis", "parceira.example"),
  /** Whose role the IdP changes between two sign-ins. */
  karina: user("karina", "Karina Melo", "parceira.example"),
  // e2e/oidc.spec.ts: the session endpoint after the IdP renames and demotes someone.
  lucas: user("lucas", "Lucas Prado", "parceira.example", [IDP.supervisorRole]),
  // e2e/oidc-idps.spec.ts, in the enterprise claims' style (the roles are the client's).
  lia: user("lia", "Lia Campos", "parceira.example", ["supervisor"]),
  marcos: user("marcos", "Marcos Teles", "parceira.example"),
} satisfies Record<string, IdpUser>;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const page = (title: string, body: string) => `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

function loginPage(uid: string, problem?: string) {
  return page(
    "Login da Parceira (IdP de teste)",
    `${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ""}
    <form method="post" action="/interaction/${uid}/login">
      <label>Usuário <input name="username" autocomplete="username" autofocus></label>
      <label>Senha da empresa <input name="password" type="password" autocomplete="current-password"></label>
      <button type="submit">Continuar</button>
    </form>
    <form method="post" action="/interaction/${uid}/abort"><button type="submit">Cancelar</button></form>`,
  );
}

async function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return new URLSearchParams(body);
}

/** How the claims look: Keycloak's realm roles and a verified `email`, or an enterprise IdP's (see ENTERPRISE_CLAIMS). */
export type ClaimsStyle = "keycloak" | "enterprise";

/** The Keycloak client that holds the supervisor role in the enterprise style (a name with a dot in it). */
export const ENTERPRISE_ROLE_CLIENT = "vendas.callcenter";

/**
 * An IdP set up as enterprise ones often are (ADFS, Entra without optional claims, a Keycloak client's roles): no
 * `email` and no `email_verified`, the address only in `preferred_username`, and the roles under a client whose
 * name holds a dot.
 */
function enterpriseClaims(user: IdpUser) {
  return {
    sub: user.sub,
    preferred_username: user.email,
    name: user.name,
    resource_access: { [ENTERPRISE_ROLE_CLIENT]: { roles: user.roles } },
  };
}

export interface IdentityProviderOptions {
  /** Default IDP.port. */
  port?: number;
  /** A path for the issuer, as Keycloak's `/realms/<realm>` (default none). */
  issuerPath?: string;
  /** The clients registered here (default: IDP.clientId with IDP.clientSecret, HTTP Basic). */
  clients?: ClientMetadata[];
  claimsStyle?: ClaimsStyle;
  /** The ID token's lifetime (default 600 s). */
  idTokenSeconds?: number;
  /** The algorithms it signs ID tokens with, one key each (default RS256); clients pick theirs. */
  signingAlgorithms?: ("RS256" | "PS256" | "ES256")[];
}

export interface RunningIdentityProvider {
  issuer: string;
  /** How many times its login form was shown (a second sign-in within its session shows none). */
  loginPagesShown(): number;
  /** How many requests it has served, of any kind (discovery, token, login…). */
  requestsServed(): number;
  /** What the IdP says of `user`'s roles from now on, as an administrator there would change them. */
  setRoles(user: IdpUser, roles: string[]): void;
  /** What the IdP says of `user`'s name from now on. */
  rename(user: IdpUser, name: string): void;
  stop(): Promise<void>;
}

/**
 * oidc-provider (OpenID Certified) on 127.0.0.1 as the partner's IdP: discovery, the authorization code flow with
 * PKCE required, ID tokens signed with fresh keys, RP-initiated logout, and a login page of its own.
 * `appOrigins`: the app instances, whose `<origin>/api/auth/callback/oidc` each client may be sent back to.
 */
export async function startIdentityProvider(
  appOrigins: string[],
  options: IdentityProviderOptions = {},
): Promise<RunningIdentityProvider> {
  const port = options.port ?? IDP.port;
  const origin = `http://127.0.0.1:${port}`;
  const issuerPath = options.issuerPath ?? "";
  const issuer = `${origin}${issuerPath}`;
  const keys = await Promise.all(
    (options.signingAlgorithms ?? ["RS256"]).map(async (alg) => {
      const { privateKey } = await generateKeyPair(alg, { extractable: true });
      return { ...(await exportJWK(privateKey)), kid: `e2e-${alg.toLowerCase()}`, alg, use: "sig" };
    }),
  );
  const users = Object.values(IDP_USERS).map((each) => ({ ...each }));
  const registered: Omit<ClientMetadata, "client_id"> = {
    redirect_uris: appOrigins.map((app) => `${app}/api/auth/callback/oidc`),
    post_logout_redirect_uris: appOrigins.map((app) => `${app}/sign-in`),
    response_types: ["code"],
    grant_types: ["authorization_code"],
  };
  const clients = options.clients ?? [
    {
      client_id: IDP.clientId,
      client_secret: IDP.clientSecret,
      token_endpoint_auth_method: "client_secret_basic",
    },
  ];
  const enterprise = options.claimsStyle === "enterprise";
  const configuration: Configuration = {
    clients: clients.map((client) => ({ ...registered, ...client })),
    jwks: { keys },
    cookies: { keys: ["e2e-idp-cookie-key-0123456789abcdef"] },
    // Every authorization request must carry an S256 challenge: a sign-in without PKCE fails here.
    pkce: { required: () => true, methods: ["S256"] },
    claims: enterprise
      ? { openid: ["sub"], profile: ["name", "preferred_username", "resource_access"] }
      : { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "realm_access"] },
    // The scopes' claims in the ID token itself, where Auth.js reads them (a Keycloak mapper's "add to ID token").
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.body = page(
            "Sair do login da Parceira?",
            `${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Sair</button>`,
          );
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.body = page("Você saiu do login da Parceira", "");
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The app is the partner's own (first-party) client: no consent screen.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { client, session, result } = ctx.oidc;
      const grantId = result?.consent?.grantId ?? session!.grantIdFor(client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: client!.clientId,
        accountId: session!.accountId,
      });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    async findAccount(_ctx, sub) {
      const found = users.find((each) => each.sub === sub);
      if (!found) return undefined;
      return {
        accountId: sub,
        claims: async () =>
          enterprise
            ? enterpriseClaims(found)
            : {
                sub,
                email: found.email,
                email_verified: found.emailVerified,
                name: found.name,
                realm_access: { roles: found.roles },
              },
      };
    },
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = page("Erro no login da Parceira", `<p>${escapeHtml(String(out.error))}</p>`);
    },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: options.idTokenSeconds ?? 600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
  };
  const provider = new Provider(issuer, configuration);
  let loginPages = 0;
  let requests = 0;

  async function interaction(request: IncomingMessage, response: ServerResponse, path: string) {
    const [, , uid, action] = path.split("/");
    const details = await provider.interactionDetails(request, response);
    if (details.uid !== uid) throw new Error("interaction mismatch");
    if (request.method === "GET") {
      loginPages += 1;
      response.setHeader("content-type", "text/html; charset=utf-8");
      response.end(loginPage(uid));
      return;
    }
    if (action === "abort") {
      await provider.interactionFinished(request, response, {
        error: "access_denied",
        error_description: "End-User aborted interaction",
      });
      return;
    }
    const form = await formBody(request);
    const found = users.find((each) => each.username === form.get("username"));
    if (!found || found.password !== form.get("password")) {
      response.setHeader("content-type", "text/html; charset=utf-8");
      response.end(loginPage(uid, "Usuário ou senha incorretos."));
      return;
    }
    await provider.interactionFinished(request, response, { login: { accountId: found.sub } });
  }

  // oidc-provider takes a secret in either place whatever the client registered; Auth0 and Okta hold a client to
  // its method. So does this IdP for HTTP Basic: a client registered otherwise that sends it is refused, as there.
  const basicRefused = (request: IncomingMessage) => {
    const [scheme, encoded] = (request.headers.authorization ?? "").split(" ");
    if (request.method !== "POST" || scheme?.toLowerCase() !== "basic" || !encoded) return false;
    const clientId = decodeURIComponent(Buffer.from(encoded, "base64").toString("utf8").split(":")[0] ?? "");
    const client = clients.find((each) => each.client_id === clientId);
    return (
      client !== undefined &&
      (client.token_endpoint_auth_method ?? "client_secret_basic") !== "client_secret_basic"
    );
  };
  const handle = provider.callback();
  const server: Server = createServer((request, response) => {
    requests += 1;
    const path = new URL(request.url ?? "/", origin).pathname;
    if (basicRefused(request)) {
      response.writeHead(401, {
        "content-type": "application/json",
        "www-authenticate": 'Basic realm="idp", error="invalid_client"',
      });
      return void response.end(
        JSON.stringify({
          error: "invalid_client",
          error_description: "client authentication method not allowed",
        }),
      );
    }
    if (!path.startsWith("/interaction/")) {
      // Mounted under the issuer's path, as a framework would mount it: the provider sees the rest.
      if (issuerPath) {
        if (!path.startsWith(`${issuerPath}/`)) return void response.writeHead(404).end();
        Object.assign(request, { originalUrl: request.url, url: request.url!.slice(issuerPath.length) });
      }
      return void handle(request, response);
    }
    interaction(request, response, path).catch((error: Error) => {
      response.statusCode = 400;
      response.end(page("Erro no login da Parceira", escapeHtml(error.message)));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    issuer,
    loginPagesShown: () => loginPages,
    requestsServed: () => requests,
    setRoles(changed, roles) {
      users.find((each) => each.sub === changed.sub)!.roles = roles;
    },
    rename(changed, name) {
      users.find((each) => each.sub === changed.sub)!.name = name;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
