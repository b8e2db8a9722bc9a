import { describe, expect, it } from "vitest";
import { claimAt, parseClaimPath } from "./claim-path";

const stepsOf = (text: string) => {
  const parsed = parseClaimPath(text);
  return parsed.ok ? parsed.path.steps : parsed.problem;
};

describe("parseClaimPath", () => {
  it.each<[string, string[]]>([
    ["roles", ["roles"]],
    ["realm_access.roles", ["realm_access", "roles"]],
    ['resource_access["vendas.callcenter"].roles', ["resource_access", "vendas.callcenter", "roles"]],
    ["resource_access['vendas.callcenter'].roles", ["resource_access", "vendas.callcenter", "roles"]],
    ['["a.b"]', ["a.b"]],
    ['a["b"]["c.d"]', ["a", "b", "c.d"]],
    ['a["say \\"hi\\""]', ["a", 'say "hi"']],
    ["https://parceira.example/roles", ["https://parceira", "example/roles"]],
  ])("reads %s", (text, steps) => {
    expect(stepsOf(text)).toEqual(steps);
  });

  it.each([
    ["a.", /ends with a dot/],
    ["a..b", /no name/],
    ["a[b]", /quoted name/],
    ['a["b"', /not closed/],
    ['a[""]', /empty/],
    ['a["b"]c', /joined by dots/],
    ['a.["b"]', /without a dot/],
  ])("refuses %s, saying why", (text, problem) => {
    expect(stepsOf(text)).toMatch(problem);
  });
});

describe("claimAt", () => {
  const at = (claims: Record<string, unknown>, text: string) => {
    const parsed = parseClaimPath(text);
    if (!parsed.ok) throw new Error(parsed.problem);
    return claimAt(claims, parsed.path);
  };

  it("prefers a claim with the whole name, then follows the steps through objects", () => {
    expect(at({ "a.b": 1, a: { b: 2 } }, "a.b")).toBe(1);
    expect(at({ a: { b: 2 } }, "a.b")).toBe(2);
    expect(at({ a: { "b.c": 3 } }, 'a["b.c"]')).toBe(3);
    expect(at({ a: [{ b: 2 }] }, "a.b")).toBeUndefined();
    expect(at({ a: "b" }, "a.length")).toBeUndefined();
  });

  it("reads own properties only", () => {
    expect(at({}, "constructor")).toBeUndefined();
    expect(at({ a: {} }, "a.__proto__")).toBeUndefined();
    expect(at({ a: {} }, "a.toString")).toBeUndefined();
  });
});
