import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { chainHead, readChain, recordAuditEvent } from "@/lib/db/queries/audit-events";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";
import { chainContent, ChainVerifier } from "./chain";

const OPERATOR = { actor: "cli:test", door: "cli" };

describe.each(testDatabases)("the audit trail's hash chain on $name", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let env: Record<string, string>;
  const verify = (...args: string[]) => runTool("audit", ["verify", ...args], env);
  /** What only the schema's owner can do: change the trail behind the trigger's back. */
  const tamper = async (statement: string) => {
    await handle.db.execute(sql.raw("alter table audit_events disable trigger audit_events_no_change"));
    try {
      await handle.db.execute(sql.raw(statement));
    } finally {
      await handle.db.execute(sql.raw("alter table audit_events enable trigger audit_events_no_change"));
    }
  };

  beforeAll(async () => {
    handle = await open();
    env = { DATA_DIR: handle.dataDir, DATABASE_URL: handle.databaseUrl ?? "" };
    // Text the chain must render exactly as the database does: quotes, escapes, accents, nested details.
    for (let index = 1; index <= 6; index++) {
      await recordAuditEvent(handle.db, {
        ...OPERATOR,
        action: index % 2 ? "customer.found" : "agent.changed",
        reason: index === 2 ? 'chamado "4471"\\ com\tTAB, ação e \u0001' : `chamado ${index}`,
        protocol: index === 3 ? "7KQ2MX9R4B" : null,
        details: { sales: ["7KQ2MX9R4B"], count: index, nested: { ok: true, none: null, ratio: 0.5 } },
      });
    }
  });
  afterAll(() => handle.close());

  it("chains every row to the one before, in order, with a time the database chose", async () => {
    const rows = await readChain(handle.db, 0, 100);
    expect(rows.map((row) => row.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows[0]!.prevHash).toBe("0".repeat(64));
    for (let index = 1; index < rows.length; index++)
      expect(rows[index]!.prevHash).toBe(rows[index - 1]!.hash);
    const verifier = new ChainVerifier();
    verifier.check(rows);
    expect(verifier.broken).toBeNull();
    expect(verifier.head).toEqual(await chainHead(handle.db));
  });

  it("rebuilds each row's content as the database's own function does", async () => {
    const rows = await readChain(handle.db, 0, 100);
    const fromDatabase = await handle.db.execute(sql`
      select seq, jsonb_build_array(seq, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        action::text, actor, door, agent_id::text, protocol, reason, details)::text as content
      from audit_events order by seq`);
    const contents = (fromDatabase as unknown as { rows: { content: string }[] }).rows.map(
      (row) => row.content,
    );
    expect(rows.map(chainContent)).toEqual(contents);
  });

  it("verifies an honest trail, and against the heads the log saw", async () => {
    const head = (await chainHead(handle.db))!;
    const result = await verify("--head", `${head.seq}:${head.hash}`);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      `Audit trail intact: 6 rows, #1 to #6, head ${head.hash}; it holds the 1 head the log saw.\n`,
    );
  });

  it("names a row edited behind the trigger's back", async () => {
    await tamper("update audit_events set reason = 'reescrito' where seq = 3");
    const result = await verify();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^Audit trail broken: row #3 \(id \d+, \S+, customer\.found\) was changed after it was written/,
    );
    await tamper("update audit_events set reason = 'chamado 3' where seq = 3");
    expect((await verify()).status).toBe(0);
  });

  it("names a row deleted from the middle, and a tail deleted, against the head the log saw", async () => {
    const head = (await chainHead(handle.db))!;
    const [fourth] = await readChain(handle.db, 3, 1);
    // The app's log, with the heads it wrote as the trail grew.
    const logFile = join(handle.dataDir, "app.log");
    writeFileSync(
      logFile,
      [
        { level: "info", event: "server.config" },
        { level: "info", event: "audit.chain_head", seq: fourth!.seq, hash: fourth!.hash },
        { level: "info", event: "audit.chain_head", seq: head.seq, hash: head.hash },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    await tamper("delete from audit_events where seq = 4");
    const middle = await verify();
    expect(middle.status).toBe(1);
    expect(middle.stderr).toContain(
      "Audit trail broken: row #4 is missing (deleted): the trail goes from #3 to #5.",
    );

    // The tail goes too: the chain left is whole, but the log saw more.
    await tamper("delete from audit_events where seq >= 4");
    expect((await verify()).status).toBe(0);
    const tail = await verify("--log", logFile);
    expect(tail.status).toBe(1);
    expect(tail.stderr).toContain(
      "Audit trail broken: the log saw row #4, but the trail ends at #3: rows #4 to #4 (at least) were deleted.",
    );
  });

  it("names a chain rewritten from a row on, hashes and all, against the head the log saw", async () => {
    const head = (await chainHead(handle.db))!;
    await tamper(`update audit_events set reason = 'forjado',
      hash = audit_event_hash(prev_hash, seq, at, action, actor, door, agent_id, protocol, 'forjado', details)
      where seq = ${head.seq}`);
    const result = await verify("--head", `${head.seq}:${head.hash}`);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`row #${head.seq} has another hash than the log saw`);
    // A row inserted in the middle with its own hash does not follow the row before it.
    await tamper(`update audit_events set prev_hash = repeat('1', 64),
      hash = audit_event_hash(repeat('1', 64), seq, at, action, actor, door, agent_id, protocol, reason, details)
      where seq = 2`);
    expect((await verify()).stderr).toMatch(/row #2 \(id \d+, \S+, agent\.changed\) does not follow row #1/);
  });
});
