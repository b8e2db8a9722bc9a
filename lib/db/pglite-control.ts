import { readFileSync } from "node:fs";
import { join } from "node:path";

// DBState in PostgreSQL's pg_control.h, in its order; pg_controldata prints the same words.
const STATES = [
  "starting up",
  "shut down",
  "shut down in recovery",
  "shutting down",
  "in crash recovery",
  "in archive recovery",
  "in production",
] as const;

export type ClusterState = (typeof STATES)[number];

// ControlFileData begins with system_identifier (8 bytes), pg_control_version and catalog_version_no (4 each).
const STATE_OFFSET = 16;

/**
 * How the embedded database was left, from its control file: "shut down" after a clean close, "in production"
 * while open or after a crash (the next open replays the write-ahead log). Null when there is no database yet.
 */
export function clusterState(pgliteDir: string): ClusterState | null {
  let control: Buffer;
  try {
    control = readFileSync(join(pgliteDir, "global/pg_control"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  return STATES[control.readInt32LE(STATE_OFFSET)] ?? "starting up";
}
