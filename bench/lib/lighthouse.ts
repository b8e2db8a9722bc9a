import { chromium } from "@playwright/test";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { CHROMIUM_ARGS, chromiumLaunchOptions } from "../../scripts/ensure-browser";
import { median } from "./stats";

export type Preset = "desktop" | "mobile";

export interface LighthouseRun {
  performance: number;
  accessibility: number;
  bestPractices: number;
  largestContentfulPaintMs: number;
  totalBlockingTimeMs: number;
  cumulativeLayoutShift: number;
  /** Audits that cost points in a scored category, as `category:audit-id`. */
  lostPoints: string[];
}

export interface LighthouseResult extends Omit<LighthouseRun, "lostPoints"> {
  path: string;
  preset: Preset;
  runs: number;
  lostPoints: string[];
}

const CATEGORIES = ["performance", "accessibility", "best-practices"] as const;

function scoreOf(value: number | null | undefined): number {
  return Math.round((value ?? 0) * 100);
}

/**
 * Lighthouse's "Something went wrong with recording the trace over your page load. Please run Lighthouse again":
 * the trace itself was lost (Chromium's, not the page's doing), so the run is repeated, not the bench failed.
 */
const TRACE_RECORDING_ERRORS = new Set([
  "NO_TRACING_STARTED",
  "NO_RESOURCE_REQUEST",
  "NO_NAVSTART",
  "NO_DCL",
  "NO_FMP",
]);
const ATTEMPTS = 3;

async function runOnce(url: string, port: number, preset: Preset, cookie?: string): Promise<LighthouseRun> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runAttempt(url, port, preset, cookie);
    } catch (error) {
      if (!(error instanceof TraceLost) || attempt === ATTEMPTS) throw error;
      console.log(`  Lighthouse lost the trace of ${url} (${error.code}), running it again`);
    }
  }
}

class TraceLost extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

async function runAttempt(
  url: string,
  port: number,
  preset: Preset,
  cookie?: string,
): Promise<LighthouseRun> {
  const result = await lighthouse(
    url,
    {
      port,
      output: "json",
      logLevel: "error",
      onlyCategories: [...CATEGORIES],
      ...(cookie ? { extraHeaders: { Cookie: cookie } } : {}),
    },
    preset === "desktop" ? desktopConfig : undefined,
  );
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}.`);
  const { lhr } = result;
  if (lhr.runtimeError) {
    const message = `Lighthouse failed on ${url}: ${lhr.runtimeError.message}`;
    const { code } = lhr.runtimeError;
    throw TRACE_RECORDING_ERRORS.has(code) ? new TraceLost(message, code) : new Error(message);
  }
  const lostPoints: string[] = [];
  for (const id of CATEGORIES) {
    for (const ref of lhr.categories[id]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1)
        lostPoints.push(`${id}:${ref.id}`);
    }
  }
  const numeric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  return {
    performance: scoreOf(lhr.categories.performance?.score),
    accessibility: scoreOf(lhr.categories.accessibility?.score),
    bestPractices: scoreOf(lhr.categories["best-practices"]?.score),
    largestContentfulPaintMs: numeric("largest-contentful-paint"),
    totalBlockingTimeMs: numeric("total-blocking-time"),
    cumulativeLayoutShift: numeric("cumulative-layout-shift"),
    lostPoints,
  };
}

/**
 * Lighthouse (performance, accessibility, best practices) on each page, `runs` times per preset, in one headless
 * Chromium; each figure is the median over the runs. A cookie signs the pages in.
 */
export async function lighthousePages(
  origin: string,
  pages: { path: string; cookie?: string }[],
  { runs, presets }: { runs: number; presets: Preset[] },
): Promise<LighthouseResult[]> {
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumLaunchOptions().executablePath ?? chromium.executablePath(),
    chromeFlags: ["--headless=new", ...CHROMIUM_ARGS],
  });
  try {
    const results: LighthouseResult[] = [];
    for (const preset of presets) {
      for (const page of pages) {
        const measured: LighthouseRun[] = [];
        for (let run = 0; run < runs; run++) {
          measured.push(await runOnce(`${origin}${page.path}`, chrome.port, preset, page.cookie));
        }
        const pick = (key: Exclude<keyof LighthouseRun, "lostPoints">) =>
          median(measured.map((run) => run[key]));
        results.push({
          path: page.path,
          preset,
          runs,
          performance: pick("performance"),
          accessibility: pick("accessibility"),
          bestPractices: pick("bestPractices"),
          largestContentfulPaintMs: pick("largestContentfulPaintMs"),
          totalBlockingTimeMs: pick("totalBlockingTimeMs"),
          cumulativeLayoutShift: pick("cumulativeLayoutShift"),
          lostPoints: [...new Set(measured.flatMap((run) => run.lostPoints))].sort(),
        });
      }
    }
    return results;
  } finally {
    chrome.kill();
  }
}
