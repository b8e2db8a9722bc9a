import "server-only";
import type { Database } from "@/lib/db/connection";
import { insertMissingAgents } from "@/lib/db/queries/agents";
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from "./demo-account-list";
import { hashPassword } from "./password";

/** Sandbox mode only: creates the demo accounts when missing, leaving any that an operator changed alone. */
export async function seedDemoAccounts(db: Database): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await insertMissingAgents(
    db,
    DEMO_ACCOUNTS.map((account) => ({ ...account, passwordHash })),
  );
}
