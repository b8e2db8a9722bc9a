import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_ID, CLIENT_SECRET, postSale, startSandbox, TOKEN_PATH, validSale } from "./test-support";
import type { RunningSandbox } from "./test-support";

// The sandbox speaks plain HTTP on 127.0.0.1, which the library refuses unless told otherwise.
const insecure = { [oauth.allowInsecureRequests]: true };

function authorizationServer(url: string): oauth.AuthorizationServer {
  return { issuer: url, token_endpoint: `${url}${TOKEN_PATH}` };
}

async function clientCredentials(url: string, clientId: string, auth: oauth.ClientAuth) {
  const as = authorizationServer(url);
  const client: oauth.Client = { client_id: clientId };
  const response = await oauth.clientCredentialsGrantRequest(as, client, auth, {}, insecure);
  return oauth.processClientCredentialsResponse(as, client, response);
}

describe("oauth4webapi against the sandbox", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it.each([
    ["client_secret_post", oauth.ClientSecretPost(CLIENT_SECRET)],
    ["client_secret_basic", oauth.ClientSecretBasic(CLIENT_SECRET)],
  ])("gets a token that sells with %s", async (_method, auth) => {
    const token = await clientCredentials(sandbox.url, CLIENT_ID, auth);
    expect(token).toMatchObject({ token_type: "bearer", expires_in: 3600 });
    expect((await postSale(sandbox.url, token.access_token, validSale())).status).toBe(200);
  });

  it("reads the OAuth error of a wrong secret sent in the body", async () => {
    const failure = clientCredentials(sandbox.url, CLIENT_ID, oauth.ClientSecretPost("wrong"));
    await expect(failure).rejects.toBeInstanceOf(oauth.ResponseBodyError);
    await expect(failure).rejects.toMatchObject({ status: 401, error: "invalid_client" });
  });

  it("reads the Basic challenge of a wrong secret sent with Basic", async () => {
    const failure = clientCredentials(sandbox.url, CLIENT_ID, oauth.ClientSecretBasic("wrong"));
    await expect(failure).rejects.toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    await expect(failure).rejects.toMatchObject({
      status: 401,
      cause: [{ scheme: "basic", parameters: { realm: "sandbox" } }],
    });
  });

  it("encodes an id and a secret with reserved characters the way the sandbox decodes them", async () => {
    const clientId = "client:with space";
    const clientSecret = "50% off: a+b/é";
    const special = await startSandbox({ clientId, clientSecret });
    try {
      for (const auth of [oauth.ClientSecretBasic(clientSecret), oauth.ClientSecretPost(clientSecret)]) {
        const token = await clientCredentials(special.url, clientId, auth);
        expect(token.token_type).toBe("bearer");
      }
    } finally {
      await special.close();
    }
  });
});
