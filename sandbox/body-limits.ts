import { json, type SandboxResponse } from "./http";
import type { Target } from "./faults";
import { saleEnvelope } from "./sale-endpoint";
import { tokenError } from "./token-endpoint";

export type Destination = Target | "control" | "other";

const KIB = 1024;

// Three form fields fit in 8 KiB many times over, and a sale is a handful of short fields.
export const BODY_LIMIT_BYTES: Record<Destination, number> = {
  token: 8 * KIB,
  sale: 64 * KIB,
  control: 64 * KIB,
  other: 8 * KIB,
};

/** The 413 answer in the shape the destination answers its other errors in. */
export function bodyTooLarge(destination: Destination, errorPageUrl: string): SandboxResponse {
  const message = `O corpo da requisição não pode passar de ${BODY_LIMIT_BYTES[destination]} bytes.`;
  switch (destination) {
    case "token":
      return tokenError(413, "invalid_request", message, { errorPageUrl });
    case "sale":
      return saleEnvelope(413, false, message);
    default:
      return json(413, { message });
  }
}
