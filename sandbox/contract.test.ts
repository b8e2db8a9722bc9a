import { beforeEach, describe, expect, it } from "vitest";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  control,
  ESSENCIAL_PLAN_ID,
  FAMILIA_PLAN_ID,
  generateCpf,
  issueToken,
  postSale,
  requestToken,
  SALE_PATH,
  startSandbox,
  TOKEN_PATH,
  VALID_CPF,
  validSale,
} from "./test-support";
import { sandboxPerFile } from "./sandbox-per-file";

let url: string;

sandboxPerFile((running) => {
  url = running.url;
});

const credentials = { grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: CLIENT_SECRET };

async function expectTokenError(
  response: Response,
  status: number,
  error: string,
  description?: string | RegExp,
) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as Record<string, string>;
  expect(Object.keys(body).sort()).toEqual(["error", "error_description", "error_uri"]);
  expect(body.error).toBe(error);
  expect(body.error_uri).toBe(`${url}/__sandbox/errors#${error}`);
  if (typeof description === "string") expect(body.error_description).toBe(description);
  else if (description) expect(body.error_description).toMatch(description);
  return body;
}

async function expectEnvelope(
  response: Response,
  status: number,
  success: boolean,
  message?: string | RegExp,
) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toEqual({ data: success, message: expect.any(String), success, total: null });
  if (typeof message === "string") expect(body.message).toBe(message);
  else if (message) expect(body.message).toMatch(message);
  return body;
}

describe("token endpoint", () => {
  it("issues a bearer token with the default lifetime of 3600 seconds", async () => {
    const response = await requestToken(url, credentials);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(3600);
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  });

  it("issues a different token each time", async () => {
    expect(await issueToken(url)).not.toBe(await issueToken(url));
  });

  it("accepts a charset parameter on the form content type", async () => {
    const response = await requestToken(url, credentials, {
      headers: { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" },
    });
    expect(response.status).toBe(200);
  });

  describe("the provider's table of errors", () => {
    it("401 invalid_client when the client_id is not valid", async () => {
      const response = await requestToken(url, { ...credentials, client_id: "someone-else" });
      await expectTokenError(response, 401, "invalid_client", "O client_id informado é inválido.");
    });

    it("401 invalid_client when the client credentials are not valid", async () => {
      const response = await requestToken(url, { ...credentials, client_secret: "wrong-secret" });
      await expectTokenError(
        response,
        401,
        "invalid_client",
        "As credenciais de cliente informadas são inválidas.",
      );
    });

    it.each(["grant_type", "client_id", "client_secret"])(
      "400 invalid_request naming the missing %s",
      async (parameter) => {
        const fields: Record<string, string> = { ...credentials };
        delete fields[parameter];
        const response = await requestToken(url, fields);
        await expectTokenError(
          response,
          400,
          "invalid_request",
          `O parâmetro obrigatório '${parameter}' não foi enviado.`,
        );
      },
    );

    it("treats an empty parameter as missing", async () => {
      const response = await requestToken(url, { ...credentials, client_secret: "" });
      await expectTokenError(response, 400, "invalid_request", /'client_secret'/);
    });
  });

  it("checks grant_type first, then the presence of the client fields, then the credentials", async () => {
    await expectTokenError(await requestToken(url, {}), 400, "invalid_request", /'grant_type'/);
    await expectTokenError(
      await requestToken(url, { grant_type: "password" }),
      400,
      "unsupported_grant_type",
    );
    await expectTokenError(
      await requestToken(url, { grant_type: "client_credentials", client_secret: "x" }),
      400,
      "invalid_request",
      /'client_id'/,
    );
    await expectTokenError(
      await requestToken(url, { grant_type: "client_credentials", client_id: "nobody" }),
      400,
      "invalid_request",
      /'client_secret'/,
    );
  });

  it("400 unsupported_grant_type for a grant other than client_credentials", async () => {
    const response = await requestToken(url, { ...credentials, grant_type: "authorization_code" });
    await expectTokenError(response, 400, "unsupported_grant_type");
  });

  it.each([
    ["JSON", "application/json", JSON.stringify(credentials)],
    ["plain text", "text/plain", new URLSearchParams(credentials).toString()],
  ])("400 invalid_request when the body is %s, not form-encoded", async (_label, contentType, body) => {
    const response = await fetch(`${url}${TOKEN_PATH}`, {
      method: "POST",
      headers: { "content-type": contentType },
      body,
    });
    await expectTokenError(response, 400, "invalid_request", /form-encoded/);
  });

  it("400 invalid_request when a parameter is repeated", async () => {
    const body = `${new URLSearchParams(credentials)}&client_id=${CLIENT_ID}`;
    const response = await fetch(`${url}${TOKEN_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    await expectTokenError(response, 400, "invalid_request", /'client_id'/);
  });

  it("answers 405 to other methods", async () => {
    const response = await fetch(`${url}${TOKEN_PATH}`);
    expect(response.headers.get("allow")).toBe("POST");
    await expectTokenError(response, 405, "invalid_request");
  });

  it("serves the page that error_uri points to", async () => {
    const response = await requestToken(url, { ...credentials, client_id: "nobody" });
    const { error_uri } = await expectTokenError(response, 401, "invalid_client");
    const page = await fetch(error_uri!);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    for (const code of ["invalid_request", "unsupported_grant_type", "invalid_client"]) {
      expect(html).toContain(`id="${code}"`);
    }
  });

  it("uses the lifetime given in the options", async () => {
    const custom = await startSandbox({
      tokenLifetimeSeconds: 120,
      clientId: "acme",
      clientSecret: "acme-secret",
    });
    try {
      const response = await requestToken(custom.url, {
        ...credentials,
        client_id: "acme",
        client_secret: "acme-secret",
      });
      expect(((await response.json()) as { expires_in: number }).expires_in).toBe(120);
      const defaultClient = await requestToken(custom.url, credentials);
      expect(defaultClient.status).toBe(401);
    } finally {
      await custom.close();
    }
  });
});

describe("partner sale endpoint", () => {
  let token: string;
  beforeEach(async () => {
    token = await issueToken(url);
  });

  it("accepts a valid sale with the success envelope, total strictly null", async () => {
    const response = await postSale(url, token, validSale({ customerDocument: VALID_CPF }));
    const body = await expectEnvelope(response, 200, true, "Venda de parceiro registrada.");
    expect(body.total).toBeNull();
    expect(body).toHaveProperty("total", null);
  });

  it.each([SALE_PATH, "/core/financeiro/partnerSale", "/CORE/FINANCEIRO/PARTNERSALE"])(
    "ignores the letter case of the path (%s)",
    async (path) => {
      await expectEnvelope(await postSale(url, token, validSale(), { path }), 200, true);
    },
  );

  it("accepts every optional field when it is valid, and ignores unknown fields", async () => {
    const response = await postSale(
      url,
      token,
      validSale({
        partnerSource: "Parceiro Exemplo",
        externalId: "CRM-0042",
        birthDate: "1985-03-09",
        extra: 1,
      }),
    );
    await expectEnvelope(response, 200, true);
  });

  describe("bearer token", () => {
    const unauthorized = async (response: Response, message: RegExp) => {
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
      await expectEnvelope(response, 401, false, message);
    };

    it("401 without a token", async () => {
      await unauthorized(await postSale(url, null, validSale()), /É necessário/);
    });

    it("401 with a malformed Authorization header", async () => {
      const response = await fetch(`${url}${SALE_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Basic ${token}` },
        body: JSON.stringify(validSale()),
      });
      await unauthorized(response, /É necessário/);
    });

    it("401 with an unknown token", async () => {
      await unauthorized(await postSale(url, "not-a-token-we-issued", validSale()), /inválido/);
    });

    it("401 with a revoked token", async () => {
      await control(url, "POST", "tokens/revoke");
      await unauthorized(await postSale(url, token, validSale()), /revogado/);
    });

    it("401 once the token has expired", async () => {
      await control(url, "POST", "token-lifetime", { seconds: 1 });
      const shortLived = await issueToken(url);
      await expectEnvelope(await postSale(url, shortLived, validSale()), 200, true);
      await new Promise((resolve) => setTimeout(resolve, 1050));
      await unauthorized(await postSale(url, shortLived, validSale()), /expirou/);
      await expectEnvelope(await postSale(url, token, validSale()), 200, true);
    });

    it("checks the token before the body", async () => {
      await unauthorized(await postSale(url, null, "{not json"), /É necessário/);
    });
  });

  describe("400 with the fields named", () => {
    it("names every invalid field, in the upstream's field order", async () => {
      const response = await postSale(
        url,
        token,
        validSale({ customerPhone: "11887654321", customerDocument: "52998224724" }),
      );
      await expectEnvelope(response, 400, false, "Campos inválidos: customerDocument, customerPhone.");
    });

    it("names missing required fields", async () => {
      const response = await postSale(url, token, {});
      await expectEnvelope(
        response,
        400,
        false,
        "Campos inválidos: customerDocument, customerEmail, customerPhone, customerName, planId.",
      );
    });

    it.each([
      ["customerDocument", "529.982.247-25"],
      ["customerDocument", 52998224725],
      ["customerDocument", "11111111111"],
      ["customerEmail", "maria@"],
      ["customerEmail", `${"a".repeat(250)}@example.com`],
      ["customerPhone", "(11) 98765-4321"],
      ["customerPhone", "5511987654321"],
      ["customerPhone", "20987654321"],
      ["customerName", "Jo"],
      ["customerName", "Maria 2"],
      ["planId", "plano-essencial"],
      ["partnerSource", "x".repeat(101)],
      ["externalId", "x".repeat(101)],
      ["birthDate", "09/03/1985"],
      ["birthDate", "2001-02-29"],
      ["birthDate", "2999-01-01"],
      ["birthDate", "1850-01-01"],
    ])("rejects %s = %j", async (field, value) => {
      const response = await postSale(url, token, validSale({ [field]: value }));
      await expectEnvelope(response, 400, false, `Campos inválidos: ${field}.`);
    });

    it.each(["partnerSource", "externalId", "birthDate"])('rejects %s sent as "" or null', async (field) => {
      for (const value of ["", null]) {
        const response = await postSale(url, token, validSale({ [field]: value }));
        await expectEnvelope(response, 400, false, `Campos inválidos: ${field}.`);
      }
    });

    it.each([
      ["not JSON", '{"customerDocument":'],
      ["a JSON array", "[]"],
      ["JSON null", "null"],
      ["a JSON string", '"sale"'],
    ])("rejects a body that is %s", async (_label, body) => {
      await expectEnvelope(await postSale(url, token, body), 400, false);
    });

    it("rejects a body that is not declared as JSON", async () => {
      const response = await fetch(`${url}${SALE_PATH}`, {
        method: "POST",
        headers: { "content-type": "text/plain", authorization: `Bearer ${token}` },
        body: JSON.stringify(validSale()),
      });
      await expectEnvelope(response, 400, false, /application\/json/);
    });
  });

  it("422 when the plan is not in the catalogue", async () => {
    const response = await postSale(
      url,
      token,
      validSale({ planId: "00000000-0000-4000-8000-000000000000" }),
    );
    await expectEnvelope(response, 422, false, /plano informado não existe/);
  });

  it("409 when the same CPF already has the same plan, but not for another plan or another CPF", async () => {
    const sale = validSale();
    await expectEnvelope(await postSale(url, token, sale), 200, true);
    await expectEnvelope(await postSale(url, token, sale), 409, false, /já possui este plano/);
    await expectEnvelope(
      await postSale(url, token, { ...sale, planId: ESSENCIAL_PLAN_ID.toUpperCase() }),
      409,
      false,
    );
    await expectEnvelope(await postSale(url, token, { ...sale, planId: FAMILIA_PLAN_ID }), 200, true);
    await expectEnvelope(await postSale(url, token, { ...sale, customerDocument: generateCpf() }), 200, true);
  });

  it("answers 405 to other methods with the envelope", async () => {
    const response = await fetch(`${url}${SALE_PATH}`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.headers.get("allow")).toBe("POST");
    await expectEnvelope(response, 405, false);
  });
});

it("answers 404 JSON on unknown paths", async () => {
  const response = await fetch(`${url}/core/financeiro/other`);
  expect(response.status).toBe(404);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(await response.json()).toHaveProperty("message");
});
