import { expect } from "@playwright/test";
import { E2E_METRICS_TOKEN } from "./environment";

/** The app's own exposition, read directly: `name{labels}` → value. */
export async function scrape(baseURL: string): Promise<Map<string, number>> {
  const response = await fetch(`${baseURL}/api/metrics`, {
    headers: { Authorization: `Bearer ${E2E_METRICS_TOKEN}` },
  });
  expect(response.status).toBe(200);
  const series = new Map<string, number>();
  for (const line of (await response.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const cut = line.lastIndexOf(" ");
    series.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return series;
}
