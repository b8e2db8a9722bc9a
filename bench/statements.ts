import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { startTestPostgres } from "../scripts/test-postgres";

// `npm run bench:statements`: each statement of a signed-in sale, run on its own in a loop (BENCH_STATEMENTS, default
// 500 each, after 50 not timed) on a new migrated database: PGlite, then a throwaway PostgreSQL when one can be
// started. Wall time per statement; `select 1` is a round trip's fixed cost. bench/NOTES.md reads the figures.
const N = Number(process.env.BENCH_STATEMENTS ?? 500);
const postgres = await startTestPostgres();
if (postgres) process.env.TEST_DATABASE_URL = postgres.url;
// Imported once TEST_DATABASE_URL is set: test/databases reads it as it loads.
const { testDatabases } = await import("../test/databases");
const { claimSubmission, recordOutcome } = await import("../lib/db/queries/sales");
const { insertAgent } = await import("../lib/db/queries/agents");
const { openTestSession } = await import("../test/sessions");
const { findSessionAgent, findSessionAgentSpending } = await import("../lib/db/queries/sessions");
const { spendBudget } = await import("../lib/db/queries/request-budgets");
const { validSale } = await import("../sandbox/test-support");

const limits = { idleMs: 3_600_000, absoluteMs: 12 * 3_600_000 };
const policy = { limit: 1e9, windowMs: 60_000 };
try {
  for (const database of testDatabases) {
    const handle = await database.open();
    const { db } = handle;
    const agent = await insertAgent(db, {
      email: "a@x.example",
      name: "Ana",
      role: "agent",
      passwordHash: "x",
    });
    const sessionId = await openTestSession(db, agent, { userAgent: "bench", now: new Date() });
    const session = () => ({ agentId: agent.id, sessionId, now: new Date(), limits });
    const time = async (name: string, work: () => Promise<unknown>) => {
      for (let i = 0; i < 50; i++) await work();
      const started = performance.now();
      for (let i = 0; i < N; i++) await work();
      console.log(
        `${database.name.padEnd(10)} ${name.padEnd(30)} ${((performance.now() - started) / N).toFixed(3)} ms`,
      );
    };
    await time("select 1", () => db.execute(sql`select 1`));
    await time("session check", () => findSessionAgent(db, session()));
    await time("budget spend", () => spendBudget(db, `sales:${agent.id}`, policy));
    await time("session check and budget", () =>
      findSessionAgentSpending(db, { ...session(), budgetKey: `sales:${agent.id}`, policy }),
    );
    const claimed: string[] = [];
    await time("claim (the ledger's row)", async () => {
      const submissionId = randomUUID();
      claimed.push(submissionId);
      await claimSubmission(db, { submissionId, agentId: agent.id, request: validSale() as never });
    });
    let next = 0;
    await time("outcome", () =>
      recordOutcome(db, claimed[next++]!, { status: "accepted", httpStatus: 200, message: "ok" }),
    );
    await handle.close();
  }
} finally {
  postgres?.stop();
}
