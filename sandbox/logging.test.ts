import { expect, it } from "vitest";
import { control, generateCpf, postSale, requestToken, startSandbox, validSale } from "./test-support";

it("logs one line per request without secrets, tokens or personal data", async () => {
  const secret = "secret-sentinel-8f2c1d";
  const sandbox = await startSandbox({ clientId: "log-client", clientSecret: secret });
  const { url, logs } = sandbox;
  const customer = {
    customerDocument: generateCpf(),
    customerEmail: "sentinel.customer@example.com",
    customerPhone: "21998877665",
    customerName: "Sentinela Ímpar",
    birthDate: "1977-07-07",
    externalId: "EXT-SENTINEL-1",
  };

  const tokens: string[] = [];
  for (let index = 0; index < 2; index++) {
    const response = await requestToken(url, {
      grant_type: "client_credentials",
      client_id: "log-client",
      client_secret: secret,
    });
    tokens.push(((await response.json()) as { access_token: string }).access_token);
  }
  await requestToken(url, {
    grant_type: "client_credentials",
    client_id: "log-client",
    client_secret: `${secret}x`,
  });
  await postSale(url, tokens[0]!, validSale(customer));
  await postSale(url, tokens[0]!, validSale(customer));
  await postSale(url, tokens[1]!, validSale({ ...customer, customerPhone: "123" }));
  await postSale(url, tokens[1]!, JSON.stringify(customer).slice(0, -3));
  await control(url, "POST", "faults", { kind: "500" });
  await postSale(url, tokens[1]!, validSale(customer));
  await control(url, "POST", "tokens/revoke");
  await postSale(url, tokens[1]!, validSale(customer));
  await sandbox.close();

  const logged = logs.map((entry) => JSON.stringify(entry)).join("\n");
  const forbidden = [
    secret,
    ...tokens,
    customer.customerDocument,
    customer.customerEmail,
    customer.customerPhone,
    customer.customerName,
    customer.birthDate,
    "Bearer",
  ];
  for (const value of forbidden) expect(logged).not.toContain(value);

  expect(logs[0]).toMatchObject({ event: "sandbox.start", url });
  expect(logs.at(-1)).toMatchObject({ event: "sandbox.stop" });
  const requests = logs.filter((entry) => entry.event === "request");
  expect(requests).toHaveLength(11);
  for (const entry of requests) {
    expect(entry).toEqual(
      expect.objectContaining({
        method: expect.any(String),
        path: expect.any(String),
        status: expect.any(Number),
        durationMs: expect.any(Number),
      }),
    );
  }
  const tokenEntries = requests.filter((entry) => entry.path === "/core/sso/connect/token");
  expect(tokenEntries.map((entry) => [entry.clientId, entry.status])).toEqual([
    ["log-client", 200],
    ["log-client", 200],
    ["log-client", 401],
  ]);
  expect(requests.find((entry) => entry.status === 500)).toMatchObject({ fault: "500" });
});
