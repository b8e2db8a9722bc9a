import { gzipSync } from "node:zlib";
import type { Page, Response } from "@playwright/test";

/** Budget for JavaScript a page adds over the framework's own, gzipped (issue 7): 40 kB, in decimal kilobytes. */
export const ADDED_SCRIPT_BUDGET_BYTES = 40_000;

/**
 * The framework baseline: the app's 404 page, rendered by the same build and root layout, with no client code of
 * ours (its one link is next/link, which every page loads anyway).
 */
export const BASELINE_PATH = "/no-such-page-framework-baseline";

export interface ScriptWeight {
  url: string;
  bytes: number;
  gzipBytes: number;
}

export interface PageWeight {
  path: string;
  scripts: ScriptWeight[];
  /** Sum over the page's script files, each gzipped at zlib's default level: deterministic for a build. */
  gzipBytes: number;
}

/**
 * The JavaScript files a page loads until the network goes quiet, as Chromium fetched them. Sizes are of the
 * decoded bodies gzipped here, so the figure does not depend on the server's compression settings.
 */
export async function measurePageScripts(page: Page, path: string): Promise<PageWeight> {
  const pending: Promise<ScriptWeight>[] = [];
  const seen = new Set<string>();
  const onResponse = (response: Response) => {
    if (response.request().resourceType() !== "script" || seen.has(response.url())) return;
    seen.add(response.url());
    // A redirect has no body to count; any other script that cannot be read fails the measurement.
    if (response.status() >= 300 && response.status() < 400) return;
    pending.push(
      response.body().then((body) => ({
        url: new URL(response.url()).pathname,
        bytes: body.length,
        gzipBytes: gzipSync(body).length,
      })),
    );
  };
  page.on("response", onResponse);
  try {
    await page.goto(path, { waitUntil: "networkidle" });
  } finally {
    page.off("response", onResponse);
  }
  const scripts = await Promise.all(pending);
  scripts.sort((a, b) => a.url.localeCompare(b.url));
  return { path, scripts, gzipBytes: scripts.reduce((sum, script) => sum + script.gzipBytes, 0) };
}
