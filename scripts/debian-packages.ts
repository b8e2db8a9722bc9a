import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** The Debian programs the tests start themselves, each with the package it comes from. */
export const TEST_PROGRAMS = {
  chromium: { pkg: "chromium", path: "/usr/bin/chromium" },
  prometheus: { pkg: "prometheus", path: "/usr/bin/prometheus" },
  nginx: { pkg: "nginx", path: "/usr/sbin/nginx" },
  // The deployment test makes its CA and TLS certificates with it.
  openssl: { pkg: "openssl", path: "/usr/bin/openssl" },
} as const;

let updated = false;

/** Runs a command in the foreground, printing it first; true when it succeeded. */
export function runCommand(command: string, args: string[]): boolean {
  console.log(`$ ${command} ${args.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  return spawnSync(command, args, { stdio: "inherit", env }).status === 0;
}

/**
 * Installs Debian packages with apt-get (no recommended extras; Debian's policy keeps their services from
 * starting in a container). False where that cannot be done: not root, or not Debian.
 */
export function aptInstall(packages: string[]): boolean {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) return false;
  if (!updated && !runCommand("apt-get", ["update", "-qq"])) return false;
  updated = true;
  return runCommand("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages]);
}

/** The programs missing here, installed; returns the names of those still missing (and says so). */
export function ensurePrograms(names: (keyof typeof TEST_PROGRAMS)[]): string[] {
  const missing = names.filter((name) => !existsSync(TEST_PROGRAMS[name].path));
  if (missing.length > 0) aptInstall(missing.map((name) => TEST_PROGRAMS[name].pkg));
  const still = missing.filter((name) => !existsSync(TEST_PROGRAMS[name].path));
  for (const name of still) {
    console.warn(
      `${name} is not installed and cannot be installed here: the tests that start it are skipped.`,
    );
  }
  return still;
}
