import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderClient, type SaleFields } from "@/lib/provider/client";
import {
  clientConfigFor,
  control,
  startSandbox,
  validSale,
  type RunningSandbox,
} from "@/sandbox/test-support";
import { statusClassOf } from "@/lib/provider/channels";
import { countDatabaseError, metrics } from "./metrics";

/** A series' value now, 0 while it does not exist; a histogram's `_count` is named as such. */
async function value(series: string, labels: Record<string, string>): Promise<number> {
  const name = series.replace(/_count$/, "");
  const metric = (await metrics().registry.getSingleMetric(name)?.get()) as
    { values: { labels: Record<string, string | number>; value: number; metricName?: string }[] } | undefined;
  const match = metric?.values.find(
    (entry) =>
      (entry.metricName ?? name) === series &&
      Object.entries(labels).every(([key, wanted]) => String(entry.labels[key]) === wanted),
  );
  return match?.value ?? 0;
}

describe("database errors", () => {
  it("are counted by SQLSTATE class, and as `connection` when the server sent none", async () => {
    const was = {
      undefinedTable: await value("partner_sales_database_errors_total", { class: "42" }),
      shutdown: await value("partner_sales_database_errors_total", { class: "57" }),
      connection: await value("partner_sales_database_errors_total", { class: "connection" }),
    };
    countDatabaseError("42P01");
    countDatabaseError("57P01");
    countDatabaseError(undefined);
    countDatabaseError("EPIPE"); // not a SQLSTATE

    expect(await value("partner_sales_database_errors_total", { class: "42" })).toBe(was.undefinedTable + 1);
    expect(await value("partner_sales_database_errors_total", { class: "57" })).toBe(was.shutdown + 1);
    expect(await value("partner_sales_database_errors_total", { class: "connection" })).toBe(
      was.connection + 2, // none, and a system error's code
    );
  });
});

describe("status classes", () => {
  it.each([
    [200, "2xx"],
    [201, "2xx"],
    [401, "4xx"],
    [503, "5xx"],
    [0, "error"],
    [600, "error"],
  ])("%i is %s", (status, expected) => {
    expect(statusClassOf(status)).toBe(expected);
  });
});

describe("the provider's requests", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const config = () => clientConfigFor(sandbox.url, { timeoutMs: 500 });
  const sale = () => validSale() as unknown as SaleFields;
  const upstream = (endpoint: string, statusClass: string) =>
    value("partner_sales_upstream_request_duration_seconds_count", { endpoint, status_class: statusClass });

  it("are timed by endpoint and status class, timeouts apart; token exchanges are counted by result", async () => {
    const was = {
      token2xx: await upstream("token", "2xx"),
      token5xx: await upstream("token", "5xx"),
      sale2xx: await upstream("sale", "2xx"),
      sale5xx: await upstream("sale", "5xx"),
      saleTimeout: await upstream("sale", "timeout"),
      ok: await value("partner_sales_token_exchanges_total", { result: "ok" }),
      unavailable: await value("partner_sales_token_exchanges_total", {
        result: "partner_api.token_unavailable",
      }),
    };
    const client = createProviderClient(config(), { log: quiet });

    await control(sandbox.url, "POST", "faults", { kind: "503", target: "token" });
    expect((await client.postSale(sale())).status).toBe("failed");
    expect((await client.postSale(sale(), { retry: true })).status).toBe("accepted");
    await control(sandbox.url, "POST", "faults", { kind: "500", target: "sale" });
    expect((await client.postSale(sale())).status).toBe("unknown");
    await control(sandbox.url, "POST", "faults", { kind: "timeout", target: "sale" });
    expect((await client.postSale(sale())).status).toBe("unknown");

    expect(await upstream("token", "5xx")).toBe(was.token5xx + 1);
    expect(await upstream("token", "2xx")).toBe(was.token2xx + 1);
    expect(await upstream("sale", "2xx")).toBe(was.sale2xx + 1);
    expect(await upstream("sale", "5xx")).toBe(was.sale5xx + 1);
    expect(await upstream("sale", "timeout")).toBe(was.saleTimeout + 1);
    expect(await value("partner_sales_token_exchanges_total", { result: "ok" })).toBe(was.ok + 1);
    expect(
      await value("partner_sales_token_exchanges_total", { result: "partner_api.token_unavailable" }),
    ).toBe(was.unavailable + 1);
  });
});
