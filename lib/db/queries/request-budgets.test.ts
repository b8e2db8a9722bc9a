import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "../connection";
import { spendBudget } from "./request-budgets";

const MINUTE = 60_000;
const policy = { limit: 5, windowMs: MINUTE };

describe.each(testDatabases)("request budgets on $name", ({ open }) => {
  let handle: DatabaseHandle;
  const start = new Date("2026-11-28T08:00:30Z");
  const at = (seconds: number) => new Date(start.getTime() + seconds * 1_000);

  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  it("lets exactly the limit through of requests sent at once, and counts keys apart", async () => {
    const spent = await Promise.all(
      Array.from({ length: 12 }, () => spendBudget(handle.db, "sales:a", policy, start)),
    );
    expect(spent.filter((each) => each.allowed)).toHaveLength(5);
    // The window opened at the first request: whole again a minute later, not at the clock's next minute.
    for (const each of spent) expect(each.renewsAt).toEqual(at(60));
    expect((await spendBudget(handle.db, "sales:b", policy, start)).allowed).toBe(true);
    expect((await spendBudget(handle.db, "sales:a", policy, at(59))).allowed).toBe(false);
  });

  it("opens a new window once the last one is over", async () => {
    const renewed = await spendBudget(handle.db, "sales:a", policy, at(61));
    expect(renewed).toEqual({ allowed: true, renewsAt: at(121) });
    for (let i = 0; i < 4; i += 1) await spendBudget(handle.db, "sales:a", policy, at(62));
    expect((await spendBudget(handle.db, "sales:a", policy, at(63))).allowed).toBe(false);
  });
});
