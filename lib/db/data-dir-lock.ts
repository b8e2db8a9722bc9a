import "server-only";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * PGlite lets one process open a data directory. The process that opens it writes its PID here; others see
 * who holds it and never open the files themselves.
 */
export const LOCK_FILE = "pglite.lock";

export type LockResult = { acquired: true; release: () => void } | { acquired: false; holderPid: number };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function acquireDataDirLock(dataDir: string): LockResult {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  // Written whole under a private name, then linked into place: link fails if the lock exists, and no
  // other process can ever read a lock file that is still empty.
  const candidate = join(dataDir, `${LOCK_FILE}.${process.pid}`);
  writeFileSync(candidate, String(process.pid), { mode: 0o600 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      linkSync(candidate, path);
      rmSync(candidate, { force: true });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (readHolder(path) === process.pid) rmSync(path, { force: true });
      };
      process.once("exit", release);
      return { acquired: true, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        rmSync(candidate, { force: true });
        throw error;
      }
      const holder = readHolder(path);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
        rmSync(candidate, { force: true });
        return { acquired: false, holderPid: holder };
      }
      // Left behind by a process that died: the directory is free.
      rmSync(path, { force: true });
    }
  }
  rmSync(candidate, { force: true });
  throw new Error(`Could not lock ${dataDir}.`);
}
