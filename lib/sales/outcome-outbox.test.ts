import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import { claimSubmission, findSale } from "@/lib/db/queries/sales";
import { log } from "@/lib/log";
import type { SaleOutcome } from "@/lib/provider";
import { testDatabases } from "@/test/databases";
import { deferOutcome, deferredSubmissionIds, writeDeferredOutcomes } from "./outcome-outbox";

const accepted: SaleOutcome = {
  status: "accepted",
  httpStatus: 200,
  message: "Venda de parceiro registrada.",
};

const request = {
  customerDocument: "52998224725",
  customerEmail: "maria@example.com",
  customerPhone: "11987654321",
  customerName: "Maria Souza",
  planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
};

describe("the answers held when the database refused them, at exit", () => {
  let handle: DatabaseHandle;
  let agentId: string;
  beforeAll(async () => {
    handle = await testDatabases[0]!.open();
    agentId = (
      await insertAgent(handle.db, { email: "a@example.com", name: "Ana", role: "agent", passwordHash: null })
    ).id;
  });
  afterAll(() => handle?.close());

  it("are written by one last try, and said in the log when even that fails", async () => {
    vi.spyOn(log, "error").mockImplementation(() => {});
    const written = randomUUID();
    await claimSubmission(handle.db, { submissionId: written, agentId, request });
    deferOutcome(handle.db, written, accepted, new Error("the database went away"));
    // One held for a database that is gone for good.
    const lost = randomUUID();
    const gone = await testDatabases[0]!.open();
    await gone.close();
    deferOutcome(gone.db, lost, accepted, new Error("the database went away"));

    await writeDeferredOutcomes();

    expect((await findSale(handle.db, written))?.status).toBe("accepted");
    expect(deferredSubmissionIds()).toEqual([lost]);
    expect(log.error).toHaveBeenCalledWith("sales.outcome_unwritten_at_exit", {
      submissionId: lost,
      status: "accepted",
      upstreamStatus: 200,
    });
  });
});
