import { createSecretKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Portal } from "@/lib/config/portals";
import { doorName, doorOpen } from "./doors";

const portal = (issuer: string, allowsSupervisors = false): Portal => ({
  issuer,
  algorithm: "HS256",
  key: createSecretKey(Buffer.from("a-portal-secret-of-enough-length-012345")),
  adoptsLegacyAgents: false,
  emailDomains: ["parceira.com.br"],
  createsAgents: true,
  allowsSupervisors,
});
const config = {
  passwordSignIn: true,
  oidc: { issuer: "https://login.parceira.com.br" } as never,
  embed: {
    allowedOrigins: [],
    portals: [portal("https://crm-a.example"), portal("https://crm-b.example", true)],
  },
};

describe("doors", () => {
  it("are written as logs and the trail read them", () => {
    expect(doorName({ kind: "password" })).toBe("password");
    expect(doorName({ kind: "oidc", issuer: "https://login.parceira.com.br" })).toBe(
      "oidc:https://login.parceira.com.br",
    );
    expect(doorName({ kind: "portal", issuer: "crm" })).toBe("portal:crm");
  });

  it("stay open while the configuration still opens them, with the session's role", () => {
    expect(doorOpen("password", "supervisor", config)).toBe(true);
    expect(doorOpen("oidc:https://login.parceira.com.br", "supervisor", config)).toBe(true);
    expect(doorOpen("portal:https://crm-a.example", "agent", config)).toBe(true);
    expect(doorOpen("portal:https://crm-b.example", "supervisor", config)).toBe(true);
  });

  it.each([
    ["passwords turned off", "password", "agent", { ...config, passwordSignIn: false }],
    [
      "another IdP configured",
      "oidc:https://login.parceira.com.br",
      "agent",
      { ...config, oidc: { issuer: "https://other" } as never },
    ],
    ["the IdP removed", "oidc:https://login.parceira.com.br", "agent", { ...config, oidc: null }],
    ["the portal removed", "portal:https://crm-c.example", "agent", config],
    [
      "a supervisor's session at a portal that may not open those",
      "portal:https://crm-a.example",
      "supervisor",
      config,
    ],
    ["a door from before doors had issuers", "portal", "agent", config],
  ] as const)("close with %s", (_case, door, role, configured) => {
    expect(doorOpen(door, role, configured)).toBe(false);
  });
});
