import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../lib/config/parse";
import { createProviderClient } from "../lib/provider/client";
import { countCpfsFrom, freshSale } from "./lib/sales";

// Run by bench/run.ts in a process of its own (tsx --conditions=react-server), so the token cache starts empty:
// 200 sales at once through the real client against the sandbox, counting token requests the sandbox saw.
// Usage: tsx --conditions=react-server bench/token-cold.ts <result file>   (SANDBOX_PORT in the environment)
const [resultFile] = process.argv.slice(2);
if (!resultFile) throw new Error("Usage: bench/token-cold.ts <result file>");

const CONCURRENT_SALES = 200;
const config = parseConfig(process.env, join(import.meta.dirname, ".."));
const sandbox = config.provider.baseUrl;

async function tokenRequests(): Promise<number> {
  const response = await fetch(`${sandbox}/__sandbox/stats`);
  return ((await response.json()) as { tokenRequests: number }).tokenRequests;
}

countCpfsFrom(800_000_000);
const before = await tokenRequests();
const client = createProviderClient(config.provider, { log: { info() {}, warn() {}, error() {} } });
const outcomes = await Promise.all(
  Array.from({ length: CONCURRENT_SALES }, () => client.postSale(freshSale())),
);
const result = {
  sales: CONCURRENT_SALES,
  accepted: outcomes.filter((outcome) => outcome.status === "accepted").length,
  tokenExchanges: (await tokenRequests()) - before,
};
writeFileSync(resultFile, JSON.stringify(result));
