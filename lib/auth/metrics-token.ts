import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import { getConfig } from "@/lib/env";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Whether the request carries `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time). */
export function hasMetricsToken(headers: Headers): boolean {
  const expected = getConfig().metricsToken;
  const given = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1];
  return Boolean(expected && given && timingSafeEqual(digest(given), digest(expected)));
}
