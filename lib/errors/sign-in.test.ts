import { describe, expect, it } from "vitest";
import { signInErrorFrom, signInErrorPath } from "./sign-in";

describe("signInErrorFrom", () => {
  it("takes the app's own codes as they are", () => {
    expect(signInErrorFrom("oidc_domain_refused")).toBe("oidc_domain_refused");
    expect(signInErrorFrom(["oidc_cancelled", "other"])).toBe("oidc_cancelled");
    expect(new URL(signInErrorPath("oidc_unreachable"), "http://x").searchParams.get("error")).toBe(
      "oidc_unreachable",
    );
  });

  it("maps Auth.js's codes, and reads anything else as the generic failure", () => {
    expect(signInErrorFrom("CredentialsSignin")).toBe("invalid_credentials");
    expect(signInErrorFrom("MissingCSRF")).toBe("stale_form");
    expect(signInErrorFrom("Configuration")).toBe("sign_in_unavailable");
    expect(signInErrorFrom("<script>alert(1)</script>")).toBe("sign_in_unavailable");
    expect(signInErrorFrom("toString")).toBe("sign_in_unavailable");
    expect(signInErrorFrom("__proto__")).toBe("sign_in_unavailable");
  });

  it("is null without an error", () => {
    expect(signInErrorFrom(undefined)).toBeNull();
    expect(signInErrorFrom("")).toBeNull();
  });
});
