import { randomUUID } from "node:crypto";
import { customer, PROBE_CUSTOMER, seededRandom, type Customer } from "./ledger-customers";

/** What `POST /api/sales` answered for each status, and the probe customer's sale if it was among them. */
export interface RealSales {
  statuses: Record<string, number>;
  probe?: { submissionId: string; protocol: string };
}

type Kind = "accepted" | "rejected" | "unknown" | "failed";

/** Of every 100 sales: 85 accepted, 7 refused by the provider, 4 with no answer to trust, 4 never sent. */
function kindOf(index: number): Kind {
  const share = index % 100;
  if (share < 85) return "accepted";
  if (share < 92) return "rejected";
  return share < 96 ? "unknown" : "failed";
}

async function control(sandbox: string, method: "GET" | "POST" | "DELETE", name: string, body?: unknown) {
  const response = await fetch(`${sandbox}/__sandbox/${name}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox ${method} ${name}: ${response.status}`);
  return response.json() as Promise<unknown>;
}

/**
 * `count` sales through `POST /api/sales`, signed in as an agent (`cookie`), each outcome made the way it happens:
 * a refusal is a customer the provider already holds on that plan (409); an unknown outcome, the provider's 500; a
 * sale never sent, a token the provider revoked and then would not renew. Those come last, so that the token's
 * back-off catches no other sale.
 */
export async function makeRealSales({
  origin,
  sandbox,
  cookie,
  count,
  firstCustomer = 0,
}: {
  origin: string;
  sandbox: string;
  cookie: string;
  count: number;
  /** Customers are numbered from here; the first sale of all is the probe customer's. */
  firstCustomer?: number;
}): Promise<RealSales> {
  const plans = (await control(sandbox, "GET", "plans")) as { id: string }[];
  const random = seededRandom(count);
  // Plans as a call center sells them: most the cheapest, few the dearest.
  const planOf = () => plans[Math.min(plans.length - 1, Math.floor(-Math.log2(1 - random())))]!.id;
  const kinds = Array.from({ length: count }, (_, index) => kindOf(index));
  kinds.sort((a, b) => Number(a === "failed") - Number(b === "failed"));
  const sold: { customer: Customer; planId: string }[] = [];
  const statuses: Record<string, number> = {};
  let probe: RealSales["probe"] | undefined;

  for (const [index, kind] of kinds.entries()) {
    const number = firstCustomer + index;
    let sale = { customer: number === 0 ? PROBE_CUSTOMER : customer(number, random), planId: planOf() };
    if (kind === "rejected") sale = sold[Math.floor(random() * sold.length)]!;
    if (kind === "unknown") await control(sandbox, "POST", "faults", { kind: "500" });
    if (kind === "failed") {
      await control(sandbox, "POST", "tokens/revoke");
      await control(sandbox, "POST", "faults", { kind: "503", target: "token" });
    }
    const response = await fetch(`${origin}/api/sales`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, "idempotency-key": randomUUID() },
      body: JSON.stringify({ ...sale.customer, planId: sale.planId }),
    });
    const answer = (await response.json()) as { status?: string; submissionId?: string; protocol?: string };
    if (!answer.status)
      throw new Error(`POST /api/sales answered ${response.status}: ${JSON.stringify(answer)}`);
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    // The probe customer stays the only sale of its CPF.
    if (kind === "accepted" && number > 0) sold.push(sale);
    if (number === 0) probe = { submissionId: answer.submissionId!, protocol: answer.protocol! };
  }
  await control(sandbox, "DELETE", "faults");
  return { statuses, probe };
}
