import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type DatabaseHandle } from "@/lib/db/connection";
import { createEmptyDatabase } from "@/scripts/test-postgres";

export interface TestDatabase {
  name: "PGlite" | "PostgreSQL";
  /** A new, empty database, migrated. */
  open(): Promise<DatabaseHandle & { databaseUrl?: string; dataDir: string }>;
}

const adminUrl = process.env.TEST_DATABASE_URL;
let counter = 0;

const createPostgresDatabase = () =>
  createEmptyDatabase(adminUrl!, `partner_sales_${process.pid}_${Date.now()}_${counter++}`);

/** PGlite always; PostgreSQL when `npm test` started one (TEST_DATABASE_URL). */
export const testDatabases: TestDatabase[] = [
  {
    name: "PGlite",
    async open() {
      const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-db-"));
      return { ...(await openDatabase({ databaseUrl: undefined, dataDir, role: "server" })), dataDir };
    },
  },
  ...(adminUrl
    ? [
        {
          name: "PostgreSQL" as const,
          async open() {
            const databaseUrl = await createPostgresDatabase();
            const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-db-"));
            return {
              ...(await openDatabase({ databaseUrl, dataDir, role: "server" })),
              databaseUrl,
              dataDir,
            };
          },
        },
      ]
    : []),
];
