import "server-only";
import { and, asc, gte, lte, sql, sum } from "drizzle-orm";
import type { Database } from "../connection";
import { saleCountsZone, saleDayCounts, sales, type SaleStatus } from "../schema";

/** Whether `sale_day_counts` counts the days of `timeZone` (else its days are another zone's). */
export async function dayCountsAreIn(db: Database, timeZone: string): Promise<boolean> {
  const [row] = await db.select({ timeZone: saleCountsZone.timeZone }).from(saleCountsZone);
  return row?.timeZone === timeZone;
}

/**
 * Makes `sale_day_counts` count the days of `timeZone` (APP_TIME_ZONE), recounting the ledger once if it counted
 * another zone's. Writes to the ledger wait meanwhile, so the trigger never counts a sale in the old zone's day.
 */
export async function countDaysIn(db: Database, timeZone: string): Promise<"unchanged" | "recounted"> {
  if (await dayCountsAreIn(db, timeZone)) return "unchanged";
  return db.transaction(async (tx) => {
    await tx.execute(sql`lock table ${sales} in share row exclusive mode`);
    await tx.execute(sql`lock table ${saleCountsZone} in exclusive mode`);
    await tx.update(saleCountsZone).set({ timeZone });
    await tx.delete(saleDayCounts);
    await tx.execute(sql`
      insert into ${saleDayCounts} (day, status, sales)
      select (${sales.createdAt} at time zone ${timeZone})::date, ${sales.status}, count(*)
      from ${sales} group by 1, 2`);
    return "recounted" as const;
  });
}

export interface DayCount {
  /** `YYYY-MM-DD` in the counted zone. */
  day: string;
  status: SaleStatus;
  sales: number;
}

const inRange = (range: { from?: string; to?: string }) =>
  and(
    range.from ? gte(saleDayCounts.day, range.from) : undefined,
    range.to ? lte(saleDayCounts.day, range.to) : undefined,
  );

/** Sales per day and status between two days (both included, either open). */
export async function readDayCounts(
  db: Database,
  range: { from?: string; to?: string },
): Promise<DayCount[]> {
  return db
    .select({ day: saleDayCounts.day, status: saleDayCounts.status, sales: saleDayCounts.sales })
    .from(saleDayCounts)
    .where(and(inRange(range), sql`${saleDayCounts.sales} > 0`))
    .orderBy(asc(saleDayCounts.day));
}

/** Sales per status between two days (both included, either open), summed by the database. */
export async function sumDayCounts(
  db: Database,
  range: { from?: string; to?: string },
): Promise<{ status: SaleStatus; sales: number }[]> {
  return db
    .select({ status: saleDayCounts.status, sales: sum(saleDayCounts.sales).mapWith(Number) })
    .from(saleDayCounts)
    .where(inRange(range))
    .groupBy(saleDayCounts.status);
}
