import type { SellOutcome } from "@/lib/sales/sell";

/**
 * The status each JSON door answers a sale request with, by how it ended (POST /api/sales and POST /api/v1/sales;
 * docs/selling.md and the OpenAPI document say the same): 201 for a new accepted sale, 200 for a replay whatever it
 * replays, 409 while another request with the same id waits for the provider or when the customer already bought
 * the plan here, 422 refused by the provider, 502 failed or unknown, 504 unknown after a timeout.
 */
export const SALE_STATUS: Readonly<Record<SellOutcome, number>> = {
  accepted: 201,
  replayed: 200,
  pending: 409,
  known_customer: 409,
  rejected: 422,
  failed: 502,
  unknown: 502,
  timed_out: 504,
};
