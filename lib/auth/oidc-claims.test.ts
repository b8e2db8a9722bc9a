import { describe, expect, it } from "vitest";
import { parseClaimPath, type ClaimPath } from "@/lib/config/claim-path";
import { emailDomainAllowed } from "@/lib/config/email-domains";
import { hasClaim, personFromClaims as personWith, roleFromClaims } from "./oidc-claims";

/** A claim path as OIDC_ROLE_CLAIM or OIDC_EMAIL_CLAIM would give it. */
function path(text: string): ClaimPath {
  const parsed = parseClaimPath(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.path;
}

const EMAIL = { emailClaim: path("email"), trustUnverifiedEmails: false };
const personFromClaims = (claims: Record<string, unknown>, config = EMAIL) => personWith(claims, config);
const roles = { roleClaim: path("roles"), supervisorValues: ["Supervisor", "coordenacao"] };

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
    const keycloak = { roleClaim: path("realm_access.roles"), supervisorValues: ["supervisor"] };
    expect(roleFromClaims({ realm_access: { roles: ["supervisor"] } }, keycloak)).toBe("supervisor");
    expect(roleFromClaims({ realm_access: ["supervisor"] }, keycloak)).toBe("agent");
    // Own properties only: nothing inherited is a claim.
    expect(roleFromClaims({}, { roleClaim: path("constructor.name"), supervisorValues: ["Object"] })).toBe(
      "agent",
    );
    expect(roleFromClaims({}, { roleClaim: path("toString"), supervisorValues: ["supervisor"] })).toBe(
      "agent",
    );
    const namespaced = {
      roleClaim: path("https://parceira.example/roles"),
      supervisorValues: ["supervisor"],
    };
    expect(roleFromClaims({ "https://parceira.example/roles": ["supervisor"] }, namespaced)).toBe(
      "supervisor",
    );
  });

  it("reaches a key that holds a dot through brackets (Keycloak's client roles)", () => {
    const client = {
      roleClaim: path('resource_access["vendas.callcenter"].roles'),
      supervisorValues: ["supervisor"],
    };
    const claims = { resource_access: { "vendas.callcenter": { roles: ["supervisor"] } } };
    expect(roleFromClaims(claims, client)).toBe("supervisor");
    // Without brackets the dots split the client's name, and nothing is there.
    const dotted = { ...client, roleClaim: path("resource_access.vendas.callcenter.roles") };
    expect(roleFromClaims(claims, dotted)).toBe("agent");
    const entra = {
      roleClaim: path("http://schemas.microsoft.com/ws/2008/06/identity/claims/role"),
      supervisorValues: ["supervisor"],
    };
    const entraClaims = { "http://schemas.microsoft.com/ws/2008/06/identity/claims/role": "supervisor" };
    expect(roleFromClaims(entraClaims, entra)).toBe("supervisor");
  });
});

describe("hasClaim", () => {
  it("tells a claim the token lacks from one it carries, nested or not", () => {
    expect(hasClaim({ realm_access: { roles: [] } }, path("realm_access.roles"))).toBe(true);
    expect(hasClaim({ realm_access: {} }, path("realm_access.roles"))).toBe(false);
    expect(hasClaim({ roles: "x" }, path("roles"))).toBe(true);
    expect(hasClaim({}, path("constructor"))).toBe(false);
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

  it("takes email_verified (or Entra ID's xms_edov) as a boolean or its string", () => {
    const base = { iss: "https://idp.example", sub: "42" };
    expect(personFromClaims({ ...base, email_verified: true })?.emailVerified).toBe(true);
    expect(personFromClaims({ ...base, email_verified: "true" })?.emailVerified).toBe(true);
    expect(personFromClaims({ ...base, email_verified: "False" })?.emailVerified).toBe(false);
    expect(personFromClaims({ ...base, email_verified: "yes" })?.emailVerified).toBeUndefined();
    expect(personFromClaims({ ...base, email_verified: 1 })?.emailVerified).toBeUndefined();
    // Entra ID: no email_verified, but its optional xms_edov claim; from another IdP it says nothing.
    const entra = {
      iss: "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0",
      sub: "42",
    };
    expect(personFromClaims({ ...entra, xms_edov: true })?.emailVerified).toBe(true);
    expect(personFromClaims({ ...entra, email_verified: false, xms_edov: true })?.emailVerified).toBe(false);
    expect(personFromClaims({ ...base, xms_edov: true })?.emailVerified).toBeUndefined();
  });

  it("takes the e-mail from the configured claim, verified only where the operator trusts the IdP", () => {
    const base = { iss: "https://adfs.parceira.example/adfs", sub: "42" };
    const upn = { emailClaim: path("upn"), trustUnverifiedEmails: false };
    const claims = {
      ...base,
      upn: "Ana@Parceira.Example",
      email: "other@parceira.example",
      email_verified: true,
    };
    // email_verified speaks of `email`, not of `upn`: without the operator's trust the address is unverified.
    expect(personFromClaims(claims, upn)).toMatchObject({
      email: "ana@parceira.example",
      emailVerified: undefined,
    });
    const trusted = { ...upn, trustUnverifiedEmails: true };
    expect(personFromClaims(claims, trusted)).toMatchObject({
      email: "ana@parceira.example",
      emailVerified: true,
    });
    // ADFS sends no email_verified: trusted, its e-mails count; an explicit false still does not.
    const adfs = { ...EMAIL, trustUnverifiedEmails: true };
    expect(personFromClaims({ ...base, email: "ana@parceira.example" }, adfs)?.emailVerified).toBe(true);
    expect(
      personFromClaims({ ...base, email: "a@parceira.example", email_verified: false }, adfs)?.emailVerified,
    ).toBe(false);
    // A claim that is no e-mail (a bare user name) gives none.
    expect(personFromClaims({ ...base, upn: "ana" }, trusted)?.email).toBeUndefined();
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
