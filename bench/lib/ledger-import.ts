import { runWorker } from "./worker";

/** What bench/history-worker.ts prints once the ledger is written. */
export interface ImportFigures {
  seconds: number;
  writeSeconds: number;
  sales: number;
  transactions: number;
  salesPerSecond: number;
  transactionsPerSecond: number;
  connections: number;
  /** Sales per status once written, as the app's day counts hold them. */
  statuses: Record<string, number>;
  agentId: string;
  deepSubmissionId: string;
}

/** bench/history-worker.ts on the stopped app's database: its figures. */
export async function runImport(
  root: string,
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<ImportFigures> {
  const figures = await runWorker<ImportFigures>(root, "bench/history-worker.ts", env);
  log(`imported in ${figures.seconds.toFixed(0)} s (${Math.round(figures.salesPerSecond)} sales/s)`);
  return figures;
}
