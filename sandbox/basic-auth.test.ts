import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basicCredentials } from "./basic-auth";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  postSale,
  requestToken,
  startSandbox,
  validSale,
  type RunningSandbox,
} from "./test-support";
import { sandboxPerFile } from "./sandbox-per-file";

let url: string;

sandboxPerFile((running) => {
  url = running.url;
});

const CHALLENGE = 'Basic realm="sandbox"';
const grant = { grant_type: "client_credentials" };

// application/x-www-form-urlencoded, as RFC 6749 section 2.3.1 asks of both parts before base64.
const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice("v=".length);
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString("base64")}`;
const rawBasic = (decoded: string | Buffer) => `Basic ${Buffer.from(decoded).toString("base64")}`;

function withBasic(authorization: string, fields: Record<string, string> = grant, baseUrl = url) {
  return requestToken(baseUrl, fields, { headers: { authorization } });
}

async function expectTokenError(response: Response, status: number, error: string, description?: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as Record<string, string>;
  expect(body.error).toBe(error);
  if (description) expect(body.error_description).toBe(description);
}

describe("client_secret_basic on the token endpoint", () => {
  it("issues a token with only grant_type in the body, and the token sells", async () => {
    const response = await withBasic(basic(CLIENT_ID, CLIENT_SECRET));
    expect(response.status).toBe(200);
    expect(response.headers.get("www-authenticate")).toBeNull();
    const { access_token, token_type } = (await response.json()) as Record<string, string>;
    expect(token_type).toBe("Bearer");
    expect((await postSale(url, access_token!, validSale())).status).toBe(200);
  });

  it("accepts the scheme name in any letter case", async () => {
    const header = basic(CLIENT_ID, CLIENT_SECRET).replace("Basic", "bAsIc");
    expect((await withBasic(header)).status).toBe(200);
  });

  it("allows a client_id in the body when it names the same client", async () => {
    const response = await withBasic(basic(CLIENT_ID, CLIENT_SECRET), { ...grant, client_id: CLIENT_ID });
    expect(response.status).toBe(200);
  });

  it("400 invalid_request when the body names another client", async () => {
    const response = await withBasic(basic(CLIENT_ID, CLIENT_SECRET), {
      ...grant,
      client_id: "someone-else",
    });
    await expectTokenError(response, 400, "invalid_request");
  });

  it("400 invalid_request when the client authenticates both ways, even with good credentials", async () => {
    const response = await withBasic(basic(CLIENT_ID, CLIENT_SECRET), {
      ...grant,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    await expectTokenError(response, 400, "invalid_request");
    expect(response.headers.get("www-authenticate")).toBeNull();
  });

  it("401 invalid_client with a challenge for a wrong secret", async () => {
    const response = await withBasic(basic(CLIENT_ID, "wrong-secret"));
    expect(response.headers.get("www-authenticate")).toBe(CHALLENGE);
    await expectTokenError(
      response,
      401,
      "invalid_client",
      "As credenciais de cliente informadas são inválidas.",
    );
  });

  it("401 invalid_client with a challenge for an unknown client", async () => {
    const response = await withBasic(basic("someone-else", CLIENT_SECRET));
    expect(response.headers.get("www-authenticate")).toBe(CHALLENGE);
    await expectTokenError(response, 401, "invalid_client", "O client_id informado é inválido.");
  });

  it.each([
    ["no credentials", "Basic"],
    ["characters outside base64", "Basic !!!!"],
    ["base64 of the wrong length", "Basic c2FuZGJveA"],
    ["two credentials", `${basic(CLIENT_ID, CLIENT_SECRET)} ${basic(CLIENT_ID, CLIENT_SECRET).slice(6)}`],
    ["no colon", rawBasic(`${CLIENT_ID}${CLIENT_SECRET}`)],
    ["a broken percent escape", rawBasic(`${CLIENT_ID}:secret%zz`)],
    ["bytes that are not UTF-8", rawBasic(Buffer.from([0x63, 0x3a, 0xff]))],
  ])("401 invalid_client with a challenge for a malformed header: %s", async (_label, header) => {
    const response = await withBasic(header);
    expect(response.headers.get("www-authenticate")).toBe(CHALLENGE);
    await expectTokenError(response, 401, "invalid_client");
  });

  it("400 invalid_request, not 401, for a malformed header next to a client_secret in the body", async () => {
    const response = await withBasic("Basic !!!!", {
      ...grant,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    await expectTokenError(response, 400, "invalid_request");
  });

  it("still checks grant_type first", async () => {
    await expectTokenError(await withBasic(basic(CLIENT_ID, CLIENT_SECRET), {}), 400, "invalid_request");
    await expectTokenError(
      await withBasic(basic(CLIENT_ID, CLIENT_SECRET), { grant_type: "password" }),
      400,
      "unsupported_grant_type",
    );
  });

  it("ignores an Authorization header of another scheme", async () => {
    const response = await withBasic("Bearer whatever", {
      ...grant,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect(response.status).toBe(200);
  });

  describe("a client whose id and secret need encoding", () => {
    const clientId = "client:with space";
    const clientSecret = "50% off: a+b/é";
    let special: RunningSandbox;
    beforeAll(async () => {
      special = await startSandbox({ clientId, clientSecret });
    });
    afterAll(() => special.close());

    it("is decoded per RFC 6749: form-decoding after base64, '+' and %20 both a space", async () => {
      expect(basic(clientId, clientSecret)).toBe(
        `Basic ${Buffer.from("client%3Awith+space:50%25+off%3A+a%2Bb%2F%C3%A9").toString("base64")}`,
      );
      expect((await withBasic(basic(clientId, clientSecret), grant, special.url)).status).toBe(200);
      const percentSpaces = rawBasic("client%3Awith%20space:50%25%20off%3A%20a%2Bb%2F%C3%A9");
      expect((await withBasic(percentSpaces, grant, special.url)).status).toBe(200);
    });

    it("fails when the parts are sent without encoding", async () => {
      const response = await withBasic(rawBasic(`${clientId}:${clientSecret}`), grant, special.url);
      await expectTokenError(response, 401, "invalid_client");
    });

    it("logs the decoded client id and never the secret", async () => {
      await withBasic(basic(clientId, clientSecret), grant, special.url);
      await withBasic(basic(clientId, "wrong"), grant, special.url);
      const entries = special.logs.filter((entry) => entry.event === "request").slice(-2);
      expect(entries.map((entry) => [entry.clientId, entry.status])).toEqual([
        [clientId, 200],
        [clientId, 401],
      ]);
      const logged = JSON.stringify(special.logs);
      expect(logged).not.toContain(clientSecret);
      expect(logged).not.toContain(formEncode(clientSecret));
    });
  });
});

describe("basicCredentials", () => {
  it("reads nothing from an absent header or another scheme", () => {
    expect(basicCredentials(undefined)).toBeNull();
    expect(basicCredentials("Bearer abc")).toBeNull();
    expect(basicCredentials("Basically abc")).toBeNull();
  });

  it("splits at the first colon, so an unencoded colon can only be in the secret", () => {
    expect(basicCredentials(rawBasic("id:se:cret"))).toEqual({ clientId: "id", clientSecret: "se:cret" });
  });

  it("allows an empty secret to reach the credentials check", () => {
    expect(basicCredentials(rawBasic("id:"))).toEqual({ clientId: "id", clientSecret: "" });
  });
});
