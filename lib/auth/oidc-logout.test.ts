import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { oidcConfig } from "@/test/oidc-config";
import { discoveryUrl, idpLogoutUrl } from "./oidc-logout";

let server: Server;
let issuer = "";
let metadata: Record<string, unknown> = {};
let asked = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    asked += 1;
    if (request.url !== "/realms/a/.well-known/openid-configuration")
      return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(metadata));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/a`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const config = () => oidcConfig({ issuer });
let clock = 1_000_000;
// Every case a minute after the last one, past the cache.
const ask = () => idpLogoutUrl(config(), "https://vendas.example", (clock += 61_000));

describe("idpLogoutUrl", () => {
  it("builds discovery's address as OpenID Connect Discovery does", () => {
    expect(discoveryUrl("https://idp.example/realms/a/").href).toBe(
      "https://idp.example/realms/a/.well-known/openid-configuration",
    );
    expect(discoveryUrl("https://idp.example").href).toBe(
      "https://idp.example/.well-known/openid-configuration",
    );
  });

  it("is the IdP's end_session_endpoint with the client and the way back, never the secret", async () => {
    metadata = { issuer, end_session_endpoint: `${issuer}/logout?ui=pt` };
    const url = new URL((await ask())!);
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/logout`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      ui: "pt",
      client_id: "partner-sales",
      post_logout_redirect_uri: "https://vendas.example/sign-in",
    });
  });

  it("asks the IdP once a minute at most", async () => {
    metadata = { issuer, end_session_endpoint: `${issuer}/logout` };
    const before = asked;
    const now = (clock += 61_000);
    await idpLogoutUrl(config(), "https://vendas.example", now);
    await idpLogoutUrl(config(), "https://vendas.example", now + 30_000);
    expect(asked - before).toBe(1);
  });

  it("offers nothing when the IdP has no logout, names another issuer, or points off this machine in clear", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    metadata = { issuer };
    expect(await ask()).toBeNull();
    metadata = { issuer: "https://evil.example", end_session_endpoint: `${issuer}/logout` };
    expect(await ask()).toBeNull();
    metadata = { issuer, end_session_endpoint: "http://idp.example/logout" };
    expect(await ask()).toBeNull();
    metadata = { issuer, end_session_endpoint: 42 };
    expect(await ask()).toBeNull();
  });
});
