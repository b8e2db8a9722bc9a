import { spawn } from "node:child_process";

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
export function runImport(
  root: string,
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<ImportFigures> {
  // Node itself with tsx's loader (not the tsx launcher, whose child would outlive a SIGKILL to it).
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=react-server", "bench/history-worker.ts"],
    { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const stopOnExit = () => child.kill("SIGKILL");
  process.once("exit", stopOnExit);
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      process.off("exit", stopOnExit);
      const line = stdout.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{"))
        reject(new Error(`The import failed (${signal ?? `exit ${code}`}).`));
      else {
        const figures = JSON.parse(line) as ImportFigures;
        log(`imported in ${figures.seconds.toFixed(0)} s (${Math.round(figures.salesPerSecond)} sales/s)`);
        resolve(figures);
      }
    });
  });
}
