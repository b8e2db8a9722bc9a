import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

/** Builds a throwaway Next app whose only page renders `widget.tsx`, which imports lib/provider. */
function buildFixture(name: string, widgetDirective: string) {
  const dir = join(root, ".tmp", name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "app"), { recursive: true });
  const files: Record<string, string> = {
    "next.config.mjs": `export default { turbopack: { root: ${JSON.stringify(root)} }, typescript: { ignoreBuildErrors: true } };`,
    "tsconfig.json": JSON.stringify({
      compilerOptions: {
        jsx: "react-jsx",
        moduleResolution: "bundler",
        module: "esnext",
        paths: { "@/*": ["../../*"] },
      },
    }),
    "app/layout.tsx": `export default function Layout({ children }) { return <html><body>{children}</body></html>; }`,
    "app/widget.tsx": `${widgetDirective}
import { provider } from "../../../lib/provider";
export function Widget() { return <p>{typeof provider}</p>; }`,
    "app/page.tsx": `import { Widget } from "./widget";
export const dynamic = "force-dynamic";
export default function Page() { return <Widget />; }`,
  };
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  const result = spawnSync(join(root, "node_modules/.bin/next"), ["build"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  rmSync(dir, { recursive: true, force: true });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe("lib/provider is server-only", () => {
  it("fails the build when a client component imports it", () => {
    const { status, output } = buildFixture("client-imports-provider", '"use client";');
    expect(status).not.toBe(0);
    expect(output).toContain("'server-only' cannot be imported from a Client Component module");
    expect(output).toMatch(/lib\/provider\/\w+\.ts/);
    expect(output).not.toContain("Module not found");
  }, 180_000);

  it("builds when a server component imports it (the control)", () => {
    const { status, output } = buildFixture("server-imports-provider", "");
    expect(output).not.toContain("server-only");
    expect(status).toBe(0);
  }, 180_000);
});
