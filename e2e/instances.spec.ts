import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { freePort } from "../bench/lib/processes";
import {
  createEmptyDatabase,
  queryOnce,
  startTestPostgres,
  type TestPostgres,
} from "../scripts/test-postgres";
import { expect, test } from "./fixtures";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { saleInFlight, sandboxControl } from "./support/sandbox";
import { signedInRequest } from "./support/sign-in-over-http";

// Several app instances on one PostgreSQL, as a call center with a load balancer runs them: started together on
// an empty database, and stopped (SIGTERM) while a sale is on its way to the provider.
test.describe.configure({ mode: "serial" });

const MIGRATIONS = (
  JSON.parse(readFileSync(join(import.meta.dirname, "../lib/db/migrations/meta/_journal.json"), "utf8")) as {
    entries: unknown[];
  }
).entries.length;

let postgres: TestPostgres | undefined;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  postgres = await startTestPostgres();
  if (!postgres && process.env.CI) throw new Error("PostgreSQL is needed for the instance tests under CI.");
});

test.afterAll(() => postgres?.stop());

test.beforeEach(() => {
  test.skip(!postgres, "PostgreSQL cannot be had here (installed by npm test as root with apt-get)");
});

/** A new, empty database on the test server (nothing migrated). */
const emptyDatabase = (name: string) => createEmptyDatabase(postgres!.url, name);

/** Resolves with the process's exit once it has exited. */
const exitOf = (app: AppInstance) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    const { child } = app.server;
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
    } else child.once("exit", (code, signal) => resolve({ code, signal }));
  });

test("four instances started in the same second on an empty PostgreSQL all become ready, five rounds", async () => {
  test.setTimeout(600_000);
  for (let round = 1; round <= 5; round++) {
    const url = await emptyDatabase(`instances_round_${round}`);
    const ports: number[] = [];
    while (ports.length < 4) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }

    const started = await Promise.allSettled(
      ports.map((port) => startAppInstance(port, { DATABASE_URL: url }, { host: "127.0.0.1" })),
    );
    const instances = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    try {
      expect(
        started.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : [])),
        `round ${round}`,
      ).toEqual([]);
      for (const instance of instances) {
        const ready = await fetch(`${instance.url}/api/health`);
        expect(ready.status, `round ${round}: ${instance.url}`).toBe(200);
        expect(await ready.json()).toEqual({ status: "ok" });
        expect((await fetch(`${instance.url}/api/health/live`)).status).toBe(200);
        expect(instance.log()).not.toContain('"level":"error"');
      }
      const [migrations] = await queryOnce<{ count: string }>(
        url,
        "select count(*) from drizzle.__drizzle_migrations",
      );
      expect(Number(migrations?.count), `round ${round}: each migration applied once`).toBe(MIGRATIONS);
      const [agents] = await queryOnce<{ count: string }>(url, "select count(*) from agents");
      expect(Number(agents?.count), `round ${round}: the demo accounts are there`).toBeGreaterThan(0);
      // Whether they met at the lock depends on how close together they got there (lib/db's tests hold it to
      // see the wait for sure): said in the report, not asserted.
      const waited = instances.filter((instance) =>
        instance.log().includes('"event":"db.migrations_waiting"'),
      );
      test.info().annotations.push({
        type: "migrations",
        description: `round ${round}: ${waited.length} of 4 waited`,
      });
    } finally {
      await Promise.all(instances.map((instance) => instance.stop()));
    }
  }
});

test.describe("SIGTERM", () => {
  let app: AppInstance | undefined;
  let agent: APIRequestContext | undefined;

  test.beforeEach(async () => {
    await sandboxControl("POST", "reset");
  });

  test.afterEach(async () => {
    await sandboxControl("POST", "latency", { ms: 0, target: "sale" });
    await agent?.dispose();
    await app?.stop();
    app = agent = undefined;
  });

  test("readiness turns 503 at once; the sale in flight is answered and recorded; then the process exits", async () => {
    test.setTimeout(180_000);
    const url = await emptyDatabase("instances_drain_delay");
    app = await startAppInstance(
      await freePort(),
      { DATABASE_URL: url, DRAIN_DELAY_SECONDS: "10" },
      { host: "127.0.0.1" },
    );
    agent = await signedInRequest(app.url);
    const exited = exitOf(app);
    const { key, answer, answered } = await saleInFlight(agent);

    app.server.child.kill("SIGTERM");
    expect(answered(), "the sale is still on its way when the server is stopped").toBe(false);

    // While the load balancer's probes learn it (DRAIN_DELAY_SECONDS), everything is still served.
    await expect
      .poll(async () => (await fetch(`${app!.url}/api/health`)).status, { timeout: 5_000, intervals: [100] })
      .toBe(503);
    const readiness = await fetch(`${app.url}/api/health`);
    expect(await readiness.json()).toEqual({ status: "draining" });
    expect(readiness.headers.get("retry-after")).toBe("5");
    expect((await fetch(`${app.url}/api/health/live`)).status).toBe(200);

    expect((await answer).status()).toBe(201);
    expect(await exited).toEqual({ code: 0, signal: null });
    const [sale] = await queryOnce<{ status: string }>(
      url,
      "select status from sales where submission_id = $1",
      [key],
    );
    expect(sale?.status).toBe("accepted");
    expect(app.log()).toContain('"event":"server.draining"');
    expect(app.log()).toContain('"event":"server.drained"');
  });

  test("with no drain delay new connections are refused at once, and the sale in flight is still answered", async () => {
    test.setTimeout(180_000);
    const url = await emptyDatabase("instances_drain_now");
    app = await startAppInstance(await freePort(), { DATABASE_URL: url }, { host: "127.0.0.1" });
    agent = await signedInRequest(app.url);
    const exited = exitOf(app);
    const { key, answer, answered } = await saleInFlight(agent);

    app.server.child.kill("SIGTERM");
    expect(answered(), "the sale is still on its way when the server is stopped").toBe(false);

    // What a proxy meets: a refused connection, which it retries on another instance.
    await expect
      .poll(
        async () =>
          fetch(`${app!.url}/api/health/live`).then(
            () => "answered",
            (error: Error) => (error.cause as { code?: string } | undefined)?.code,
          ),
        { timeout: 5_000, intervals: [100] },
      )
      .toBe("ECONNREFUSED");
    expect((await answer).status()).toBe(201);
    expect(await exited).toEqual({ code: 0, signal: null });
    const [sale] = await queryOnce<{ status: string }>(
      url,
      "select status from sales where submission_id = $1",
      [key],
    );
    expect(sale?.status).toBe("accepted");
  });
});
