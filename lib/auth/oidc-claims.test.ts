import { describe, expect, it } from "vitest";
import { emailDomainAllowed } from "@/lib/config/email-domains";
import { hasClaim, personFromClaims, roleFromClaims } from "./oidc-claims";

const roles = { roleClaim: "roles", supervisorValues: ["Supervisor", "coordenacao"] };

describe("roleFromClaims", () => {
  it("makes everyone an agent when no claim is configured", () => {
    expect(roleFromClaims({ roles: ["Supervisor"] }, { roleClaim: undefined, supervisorValues: [] })).toBe(
      "agent",
    );
  });

  it.each<[unknown, "agent" | "supervisor"]>([
    [["Supervisor"], "supervisor"],
    [["vendas", "coordenacao"], "supervisor"],
    ["Supervisor", "supervisor"],
    ["supervisor", "agent"], // exact values, letter case included
    [["vendas"], "agent"],
    [undefined, "agent"],
    [{ Supervisor: true }, "agent"],
    [[["Supervisor"]], "agent"],
  ])("reads %j as %s", (value, role) => {
    expect(roleFromClaims({ roles: value }, roles)).toBe(role);
  });

  it("follows a dotted path into nested claims, and prefers a claim with the dotted name itself", () => {
    const keycloak = { roleClaim: "realm_access.roles", supervisorValues: ["supervisor"] };
    expect(roleFromClaims({ realm_access: { roles: ["supervisor"] } }, keycloak)).toBe("supervisor");
    expect(roleFromClaims({ realm_access: ["supervisor"] }, keycloak)).toBe("agent");
    // Own properties only: nothing inherited is a claim.
    expect(roleFromClaims({}, { roleClaim: "constructor.name", supervisorValues: ["Object"] })).toBe("agent");
    expect(roleFromClaims({}, { roleClaim: "toString", supervisorValues: ["supervisor"] })).toBe("agent");
    const namespaced = { roleClaim: "https://parceira.example/roles", supervisorValues: ["supervisor"] };
    expect(roleFromClaims({ "https://parceira.example/roles": ["supervisor"] }, namespaced)).toBe(
      "supervisor",
    );
  });
});

describe("hasClaim", () => {
  it("tells a claim the token lacks from one it carries, nested or not", () => {
    expect(hasClaim({ realm_access: { roles: [] } }, "realm_access.roles")).toBe(true);
    expect(hasClaim({ realm_access: {} }, "realm_access.roles")).toBe(false);
    expect(hasClaim({ roles: "x" }, "roles")).toBe(true);
    expect(hasClaim({}, "constructor")).toBe(false);
  });
});

describe("emailDomainAllowed", () => {
  it("takes exact domains only", () => {
    const allowed = ["parceira.com.br"];
    expect(emailDomainAllowed("ana@parceira.com.br", allowed)).toBe(true);
    expect(emailDomainAllowed("ana@vendas.parceira.com.br", allowed)).toBe(false);
    expect(emailDomainAllowed("ana@parceira.com.br.evil.example", allowed)).toBe(false);
    expect(emailDomainAllowed("parceira.com.br@evil.example", allowed)).toBe(false);
    expect(emailDomainAllowed("ana@evil.example", [])).toBe(true);
  });
});

describe("personFromClaims", () => {
  it("names the person from what the IdP sends, best first", () => {
    const base = { iss: "https://idp.example", sub: "42", email: "Ana@Parceira.Example" };
    expect(personFromClaims({ ...base, name: "  Ana Lima " })?.name).toBe("Ana Lima");
    expect(personFromClaims({ ...base, given_name: "Ana", family_name: "Lima" })?.name).toBe("Ana Lima");
    expect(personFromClaims({ ...base, preferred_username: "ana.lima" })?.name).toBe("ana.lima");
    expect(personFromClaims(base)?.name).toBe("ana");
    expect(personFromClaims({ ...base, name: "Ana\u0007Lima" })?.name).toBe("Ana Lima");
    expect(personFromClaims(base)).toMatchObject({ email: "ana@parceira.example", emailVerified: undefined });
  });

  it("takes email_verified (or Entra ID's xms_edov) only as a boolean", () => {
    const base = { iss: "https://idp.example", sub: "42" };
    expect(personFromClaims({ ...base, email_verified: true })?.emailVerified).toBe(true);
    expect(personFromClaims({ ...base, email_verified: "true" })?.emailVerified).toBeUndefined();
    // Entra ID: no email_verified, but its optional xms_edov claim; from another IdP it says nothing.
    const entra = {
      iss: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
      sub: "42",
    };
    expect(personFromClaims({ ...entra, xms_edov: true })?.emailVerified).toBe(true);
    expect(personFromClaims({ ...entra, email_verified: false, xms_edov: true })?.emailVerified).toBe(false);
    expect(personFromClaims({ ...base, xms_edov: true })?.emailVerified).toBeUndefined();
  });

  it("checks the e-mail before lower-casing it: the Kelvin sign does not become someone's k", () => {
    const base = { iss: "https://idp.example", sub: "42", email_verified: true };
    expect(personFromClaims({ ...base, email: "\u212Aatia@parceira.example" })?.email).toBeUndefined();
    expect(personFromClaims({ ...base, email: "KATIA@parceira.example" })?.email).toBe(
      "katia@parceira.example",
    );
  });

  it("drops direction overrides and zero-width characters from the name", () => {
    const base = { iss: "https://idp.example", sub: "42" };
    expect(personFromClaims({ ...base, name: "Ana\u202E\u200BLima" })?.name).toBe("AnaLima");
  });

  it("is null without an issuer and a subject", () => {
    expect(personFromClaims({ sub: "42" })).toBeNull();
    expect(personFromClaims({ iss: "https://idp.example", sub: 42 })).toBeNull();
  });
});
