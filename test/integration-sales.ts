import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "@/lib/db/connection";
import { claimSubmission, recordOutcome } from "@/lib/db/queries/sales";
import { integrations, sales, type Integration, type Sale } from "@/lib/db/schema";
import type { SaleOutcome } from "@/lib/provider/outcome";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";

/** An integration as an operator's first API key makes it (`npm run api-keys -- create --name`). */
export async function insertIntegration(db: Database, name: string): Promise<Integration> {
  const [integration] = await db.insert(integrations).values({ name }).returning();
  return integration!;
}

const ACCEPTED: SaleOutcome = {
  status: "accepted",
  httpStatus: 201,
  message: "Venda de parceiro registrada.",
};

/**
 * A sale an integration's API key made, as the ledger records one: claimed with its sellers, then answered. Alone
 * (`agentId: null`) or on an agent's behalf.
 */
export async function sellByIntegration(
  db: Database,
  input: {
    integrationId: string;
    agentId: string | null;
    request: PartnerSaleRequestBody;
    outcome?: SaleOutcome;
  },
): Promise<Sale> {
  const { outcome = ACCEPTED, ...sale } = input;
  const submissionId = randomUUID();
  const claim = await claimSubmission(db, { submissionId, ...sale });
  return { ...claim.sale, ...(await recordOutcome(db, submissionId, outcome)) };
}

/** Takes a test's integrations and their sales away again, for the tests after it. */
export async function removeIntegrations(db: Database, ...made: Integration[]): Promise<void> {
  for (const integration of made) {
    await db.delete(sales).where(eq(sales.integrationId, integration.id));
    await db.delete(integrations).where(eq(integrations.id, integration.id));
  }
}
