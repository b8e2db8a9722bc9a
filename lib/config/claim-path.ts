/**
 * Where a value sits in an ID token, as an operator names it (`OIDC_ROLE_CLAIM`, `OIDC_EMAIL_CLAIM`):
 * - a claim's whole name, which may hold dots or slashes (`roles`, `upn`,
 *   `http://schemas.microsoft.com/ws/2008/06/identity/claims/role`): a claim by that very name always wins;
 * - failing that, a path into nested objects, its steps joined by dots (`realm_access.roles`), where a step whose
 *   own name holds a dot is written in brackets and quotes (`resource_access["vendas.callcenter"].roles`, a
 *   Keycloak client's roles). Inside the quotes, `\"` is a quote and `\\` a backslash.
 */
export interface ClaimPath {
  /** As configured, for messages and logs. */
  text: string;
  /** The steps from the token's top level: one for a plain name. */
  steps: string[];
}

/** What is wrong with a claim path as written (an English sentence for the start-up error), or null. */
export type ClaimPathResult = { ok: true; path: ClaimPath } | { ok: false; problem: string };

const PLAIN_STEP = /^[^.[\]"'\\]+/;

/** Parses `text` (already trimmed, not empty). */
export function parseClaimPath(text: string): ClaimPathResult {
  const steps: string[] = [];
  let rest = text;
  const fail = (problem: string): ClaimPathResult => ({ ok: false, problem });
  while (rest) {
    if (rest.startsWith("[")) {
      const quote = rest[1];
      if (quote !== '"' && quote !== "'")
        return fail(`a bracket holds a quoted name: ["a.b"] (at "${rest}")`);
      let step = "";
      let index = 2;
      for (; index < rest.length && rest[index] !== quote; index += 1) {
        if (rest[index] === "\\") index += 1;
        if (index >= rest.length) break;
        step += rest[index];
      }
      if (rest[index] !== quote || rest[index + 1] !== "]")
        return fail(`a quoted name is not closed (at "${rest}")`);
      if (!step) return fail("a quoted name is empty");
      steps.push(step);
      rest = rest.slice(index + 2);
    } else {
      const plain = PLAIN_STEP.exec(rest)?.[0];
      if (!plain) return fail(`a step has no name (at "${rest}")`);
      steps.push(plain);
      rest = rest.slice(plain.length);
    }
    if (rest.startsWith(".")) {
      rest = rest.slice(1);
      if (!rest) return fail("it ends with a dot");
      if (rest.startsWith("["))
        return fail(`a bracket follows its step without a dot: a["b"] (at ".${rest}")`);
    } else if (rest && !rest.startsWith("[")) {
      return fail(`steps are joined by dots (at "${rest}")`);
    }
  }
  return { ok: true, path: { text, steps } };
}

/**
 * The value at `path` in `claims`: the claim named exactly `path.text` when there is one, else the nested one.
 * Own properties only: `constructor` or `__proto__` name nothing in a token.
 */
export function claimAt(claims: Record<string, unknown>, path: ClaimPath): unknown {
  if (Object.hasOwn(claims, path.text)) return claims[path.text];
  let value: unknown = claims;
  for (const step of path.steps) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}
