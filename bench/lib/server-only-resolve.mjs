// The resolve hook bench/lib/server-only.mjs registers: `server-only` as a React Server Component sees it (empty).
export async function resolve(specifier, context, nextResolve) {
  if (specifier !== "server-only") return nextResolve(specifier, context);
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, "react-server"] });
}
