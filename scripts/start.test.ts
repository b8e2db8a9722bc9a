import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const tsx = join(root, "node_modules/.bin/tsx");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startWith(env: Record<string, string>) {
  return spawnSync(tsx, ["scripts/start.ts"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, PARTNER_API_BASE_URL: "", ...env },
    timeout: 60_000,
  });
}

describe("npm start", () => {
  it.each([
    ["PARTNER_API_BASE_URL", { PARTNER_API_BASE_URL: "provider.example/api" }],
    ["PLANS_FILE", { PLANS_FILE: join(root, "package.json") }],
    ["PLANS_FILE", { PLANS_FILE: "/nonexistent/plans.json" }],
    ["PARTNER_CLIENT_ID", { PARTNER_API_BASE_URL: "https://provider.example" }],
  ])("refuses a wrong %s with one clear line", (variable, env) => {
    const result = startWith(env);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Configuration error: ${variable}: `));
  });

  it("serves the app against the sandbox and logs no secret or token", async () => {
    const [port, sandboxPort] = [await freePort(), await freePort()];
    const secret = "sentinel-client-secret-4f1c9a";
    const child = spawn(tsx, ["scripts/start.ts"], {
      cwd: root,
      env: {
        ...process.env,
        PARTNER_API_BASE_URL: "",
        PORT: String(port),
        SANDBOX_PORT: String(sandboxPort),
        PARTNER_CLIENT_SECRET: secret,
        DATA_DIR: mkdtempSync(join(tmpdir(), "partner-sales-start-")),
      },
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      const deadline = Date.now() + 180_000;
      while (!output.includes("Press Ctrl-C to stop.") && Date.now() < deadline && child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(output).toContain(`Partner Sales is running on http://localhost:${port}`);
      expect(output).toContain(
        `Sandbox upstream (stand-in for the provider) on http://127.0.0.1:${sandboxPort}`,
      );

      const page = await fetch(`http://localhost:${port}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Partner Sales");
      // The app obtains a token at boot, so the exchange's log lines are part of what is checked below.
      let health: { upstream: { tokenCached: boolean } } | undefined;
      for (let attempt = 0; attempt < 50 && !health?.upstream.tokenCached; attempt++) {
        health = await (await fetch(`http://localhost:${port}/api/health`)).json();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(health?.upstream.tokenCached).toBe(true);
      const stats = await (await fetch(`http://127.0.0.1:${sandboxPort}/__sandbox/stats`)).json();
      expect(stats.tokensIssued).toBe(1);
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited).toBe(0);

    const logLines = output.split("\n").filter((line) => line.startsWith("{"));
    expect(logLines.some((line) => line.includes('"event":"partner_api.token_issued"'))).toBe(true);
    expect(output).not.toContain(secret);
    // Sandbox tokens are 43+ characters of base64url; nothing that long may appear in any log line.
    for (const line of logLines) expect(line).not.toMatch(/[A-Za-z0-9_-]{40,}/);
  }, 240_000);
});
