import { randomUUID } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { apiSale } from "./sandbox";

export interface SoldSale {
  submissionId: string;
  protocol: string;
  status: string;
  body: Record<string, unknown>;
}

/** A sale made through `POST /api/sales` with the page's session: what the agent did, without the form. */
export function sellOverApi(page: Page, overrides: Record<string, unknown> = {}): Promise<SoldSale> {
  return sellAgain(page, { submissionId: randomUUID(), body: apiSale(overrides) });
}

/** The same sale sent again (same submissionId): a replay, or a new attempt after "nothing was sent". */
export async function sellAgain(
  page: Page,
  sale: Pick<SoldSale, "submissionId" | "body">,
): Promise<SoldSale> {
  const response = await page.request.post("/api/sales", {
    data: sale.body,
    headers: { "Idempotency-Key": sale.submissionId },
  });
  const result = (await response.json()) as { submissionId: string; protocol: string; status: string };
  expect(result.submissionId).toBe(sale.submissionId);
  return { ...sale, protocol: result.protocol, status: result.status };
}
