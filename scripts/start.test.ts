import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clusterState } from "@/lib/db/pglite-control";
import { startSandbox } from "@/sandbox/test-support";

const root = join(import.meta.dirname, "..");
// As `npm start` runs it: one process (tsx's loader inside node), so a signal reaches start.ts itself rather than
// tsx's wrapper, which gives its child 30 ms to answer and exits 130 on a busy machine.
const START = ["--import", "tsx", "scripts/start.ts"];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startWith(env: Record<string, string>) {
  return spawnSync(process.execPath, START, {
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
    ["PARTNER_API_BASE_URL", { PARTNER_API_BASE_URL: "http://provider.example" }],
    ["AUTH_URL", { EMBED_ALLOWED_ORIGINS: "https://portal.example", AUTH_URL: "http://vendas.example" }],
    ["TRUSTED_PROXIES", { TRUSTED_PROXIES: "my-proxy" }],
    [
      "AUTH_SECRET",
      {
        PARTNER_API_BASE_URL: "https://provider.example",
        PARTNER_CLIENT_ID: "id",
        PARTNER_CLIENT_SECRET: "secret",
      },
    ],
  ])("refuses a wrong %s with one clear line", (variable, env) => {
    const result = startWith(env);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Configuration error: ${variable}: `));
  });

  it("serves the app against the sandbox and logs no secret or token", async () => {
    const secret = "sentinel-client-secret-4f1c9a";
    const app = await startApp({
      PARTNER_CLIENT_SECRET: secret,
      EMBED_ALLOWED_ORIGINS: "https://portal.partner.example, http://127.0.0.1:8080",
    });
    let output: string;
    try {
      expect(app.output()).toContain(`Partner Sales is running on ${app.url}`);
      expect(app.output()).toContain(
        `Sandbox upstream (stand-in for the provider) on http://127.0.0.1:${app.sandboxPort}`,
      );
      expect(app.output()).toContain("agente@demo.local");

      const page = await fetch(`${app.url}/sign-in`);
      expect(page.status).toBe(200);
      // The portals allowed to frame the app come from configuration read at run time, not from the build.
      expect(page.headers.get("content-security-policy")?.split("; ")).toContain(
        "frame-ancestors 'self' https://portal.partner.example http://127.0.0.1:8080",
      );
      expect(await page.text()).toContain("Partner Sales");
      // The app obtains a token at boot, so the exchange's log lines are part of what is checked below.
      expect((await waitForToken(app.url)).upstream.tokenCached).toBe(true);
      const stats = await (await fetch(`http://127.0.0.1:${app.sandboxPort}/__sandbox/stats`)).json();
      expect(stats.tokensIssued).toBe(1);
    } finally {
      output = await app.stop({ group: true });
    }

    // Stopped as a service manager stops it, the app still drains, and its last lines are not lost.
    expect(output).toContain('"event":"server.draining"');
    expect(output).toContain('"event":"server.drained"');
    // The embedded database was closed, checkpointed: the next start replays nothing.
    expect(output).toContain('"event":"server.closed"');
    expect(clusterState(join(app.env.DATA_DIR, "pglite"))).toBe("shut down");
    const logLines = output.split("\n").filter((line) => line.startsWith("{"));
    expect(logLines.some((line) => line.includes('"event":"partner_api.token_issued"'))).toBe(true);
    expect(output).not.toContain(secret);
    // Sandbox tokens are 43+ characters of base64url; nothing that long may appear in any log line, but the audit
    // trail's head (its newest row's SHA-256, logged on purpose so a deleted tail shows), in its own field.
    for (const line of logLines) {
      const { hash, ...rest } = JSON.parse(line) as { event: string; hash?: string };
      if (rest.event === "audit.chain_head") expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(rest)).not.toMatch(/[A-Za-z0-9_-]{40,}/);
    }
  }, 240_000);

  it("in live mode starts no sandbox and creates no demo account", async () => {
    const upstream = await startSandbox({ clientId: "live-client", clientSecret: "live-secret" });
    const app = await startApp({
      PARTNER_API_BASE_URL: upstream.url,
      PARTNER_CLIENT_ID: "live-client",
      PARTNER_CLIENT_SECRET: "live-secret",
      AUTH_SECRET: "a-live-auth-secret-with-32-characters-or-more",
    });
    try {
      expect(app.output()).toContain(`Upstream: ${upstream.url}`);
      expect(app.output()).not.toContain("Demo accounts");
      expect((await waitForToken(app.url)).upstream).toMatchObject({ mode: "live", tokenCached: true });
      const agents = spawnSync(
        process.execPath,
        ["--import", "tsx", "--conditions=react-server", "scripts/agents.ts", "list"],
        {
          cwd: root,
          encoding: "utf8",
          env: { ...process.env, ...app.env },
        },
      );
      expect(agents.stdout).toBe("No agents yet.\n");
    } finally {
      await app.stop();
      await upstream.close();
    }
  }, 240_000);
});

describe("npm start, stopped the hard way", () => {
  it("killed with SIGKILL, leaves no process behind, and its server closes the database first", async () => {
    const [port, sandboxPort] = [await freePort(), await freePort()];
    const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-kill-"));
    // npm itself, as a person runs it: SIGKILL reaches npm alone, never the processes it started.
    const npm = spawn("npm", ["start", "--silent"], {
      cwd: root,
      env: { ...process.env, ...appEnv(port, sandboxPort, dataDir) },
      detached: true,
    });
    const output = collect(npm);
    try {
      await until(() => output().includes("Press Ctrl-C to stop.") || npm.exitCode !== null, "the banner");
      expect(npm.exitCode, output()).toBeNull();

      process.kill(npm.pid!, "SIGKILL");
      await until(() => !groupAlive(npm.pid!), "every process of npm start to exit", 120_000);
      expect(clusterState(join(dataDir, "pglite"))).toBe("shut down");
      expect(await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => "refused")).toBe("refused");
    } finally {
      if (groupAlive(npm.pid!)) process.kill(-npm.pid!, "SIGKILL");
    }
  }, 240_000);

  it("whose output pipe is gone, drains and closes instead of failing every write", async () => {
    const [port, sandboxPort] = [await freePort(), await freePort()];
    const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-epipe-"));
    const server = spawn(process.execPath, ["scripts/server.mjs", "--port", String(port)], {
      cwd: root,
      env: { ...process.env, ...appEnv(port, sandboxPort, dataDir), NEXT_TELEMETRY_DISABLED: "1" },
    });
    const exited = new Promise<number | null>((resolve) => server.on("exit", resolve));
    collect(server);
    const url = `http://127.0.0.1:${port}`;
    try {
      await until(
        async () => (await fetch(`${url}/api/health`).catch(() => undefined))?.status === 200,
        "readiness",
      );

      // The reader of its output goes away (npm start killed); the next line it writes meets EPIPE.
      server.stdout.destroy();
      server.stderr.destroy();
      // Any request makes it write (a forged cookie, a line in the security log). Its answer may come or not: the
      // write that meets EPIPE stops the process, which may close this connection first (ECONNRESET, seen once in
      // a fresh-clone run). What counts is below: it exits, cleanly, with its database shut down.
      await fetch(`${url}/sales`, {
        headers: { cookie: "authjs.session-token=forged" },
        redirect: "manual",
      }).catch(() => undefined);
      expect(await exited).toBe(0);
      expect(clusterState(join(dataDir, "pglite"))).toBe("shut down");
    } finally {
      // Without its handlers it would spin on the broken pipe for ever: not past this test.
      if (server.exitCode === null) server.kill("SIGKILL");
    }
  }, 240_000);
});

function appEnv(port: number, sandboxPort: number, dataDir: string): Record<string, string> {
  return {
    PARTNER_API_BASE_URL: "",
    DATABASE_URL: "",
    PORT: String(port),
    SANDBOX_PORT: String(sandboxPort),
    DATA_DIR: dataDir,
    AUTH_URL: `http://localhost:${port}`,
  };
}

function collect(child: ChildProcess): () => string {
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return () => output;
}

/** Whether any process of the group led by `pid` is still there. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds; a bound, not a measurement: failing means it never happened. */
async function until(condition: () => boolean | Promise<boolean>, what: string, limitMs = 180_000) {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Waited ${limitMs / 1000} s for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const METRICS_TOKEN = "start-test-metrics-token-0123456789abcdef";

async function waitForToken(url: string): Promise<{ upstream: { tokenCached: boolean; mode: string } }> {
  let health: { upstream: { tokenCached: boolean; mode: string } } | undefined;
  for (let attempt = 0; attempt < 50 && !health?.upstream.tokenCached; attempt++) {
    const headers = { Authorization: `Bearer ${METRICS_TOKEN}` };
    health = await (await fetch(`${url}/api/health`, { headers })).json();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return health!;
}

/** `npm start` on free ports with its own DATA_DIR; resolves once the banner is printed. */
async function startApp(overrides: Record<string, string>) {
  const [port, sandboxPort] = [await freePort(), await freePort()];
  const env = {
    PARTNER_API_BASE_URL: "",
    DATABASE_URL: "",
    PORT: String(port),
    SANDBOX_PORT: String(sandboxPort),
    DATA_DIR: mkdtempSync(join(tmpdir(), "partner-sales-start-")),
    AUTH_URL: `http://localhost:${port}`,
    METRICS_TOKEN,
    ...overrides,
  };
  // A process group of its own, so that a test can signal it whole, as systemd stops a service.
  const child = spawn(process.execPath, START, {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const deadline = Date.now() + 180_000;
  while (!output.includes("Press Ctrl-C to stop.") && Date.now() < deadline && child.exitCode === null) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url: `http://localhost:${port}`,
    sandboxPort,
    env,
    output: () => output,
    /** Ctrl-C to `npm start`; or SIGTERM to every process of the group (`group`). */
    async stop({ group = false } = {}) {
      if (group) process.kill(-child.pid!, "SIGTERM");
      else child.kill("SIGINT");
      expect(await exited).toBe(0);
      return output;
    },
  };
}
