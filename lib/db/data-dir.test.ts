import { chmodSync, chownSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { DataDirUnsafeError, openDatabase, type DatabaseHandle } from "./connection";

const isRoot = process.getuid?.() === 0;
const opened: DatabaseHandle[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((handle) => handle.close()));
  vi.restoreAllMocks();
});

const dataDir = (mode: number) => {
  const path = mkdtempSync(join(tmpdir(), "partner-sales-data-dir-"));
  chmodSync(path, mode);
  return path;
};
const open = async (path: string) => {
  const handle = await openDatabase({ databaseUrl: undefined, dataDir: path, role: "server" });
  opened.push(handle);
  return handle;
};
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the embedded database's DATA_DIR, whose socket answers as the database's superuser", () => {
  it.each([0o770, 0o777, 0o702])(
    "refuses to start in a directory others can write to (mode %o)",
    async (mode) => {
      const path = dataDir(mode);
      await expect(open(path)).rejects.toThrow(DataDirUnsafeError);
      await expect(open(path)).rejects.toThrow(`can be written by other users (mode ${mode.toString(8)})`);
      // Refused before anything was created or locked there.
      expect(modeOf(path)).toBe(mode);
    },
  );

  it.runIf(isRoot)("refuses a directory another user owns", async () => {
    const path = dataDir(0o700);
    chownSync(path, 65534, 65534);
    await expect(open(path)).rejects.toThrow("belongs to another user (uid 65534)");
  });

  it("closes a directory others could read to them, says so, and keeps its socket the app user's alone", async () => {
    const warn = vi.spyOn(log, "warn");
    const path = dataDir(0o755);
    await open(path);
    expect(modeOf(path)).toBe(0o700);
    expect(warn).toHaveBeenCalledWith("db.data_dir_closed", { mode: "755", now: "700" });
    expect(modeOf(join(path, ".s.PGSQL.5432"))).toBe(0o600);
  });
});
