import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeLatestSection } from "./latest-section";

interface SaleFigures {
  noneP50Ms: number;
  twoP50Ms: number;
  noneP95Ms: number;
  twoP95Ms: number;
  addedP50Ms: number;
}

/** What bench/webhooks-worker.ts prints: one database's figures. */
export interface WebhookFigures {
  database: string;
  rounds: number;
  salesPerBlock: number;
  salePaceMs: number;
  /** A sale's two ledger writes (the claim, the outcome and its trigger), one every `salePaceMs`. */
  sale: SaleFigures;
  /** The same, back to back: the instance saturated. */
  saturated: SaleFigures;
  /** A backlog made while no dispatcher ran, delivered by one from its start. */
  backlog: { events: number; seconds: number; eventsPerSecond: number };
  /** From the outcome's commit to the receiver, a sale every 20 ms. */
  outcomeToDelivery: { events: number; p50Ms: number; p95Ms: number; maxMs: number };
  /** The machine's 1-minute load average after the run. */
  loadAverage: number;
}

export const WEBHOOK_TARGETS = { addedP50Ms: 0.5, eventsPerSecond: 500, outcomeToDeliveryP95Ms: 1_000 };
const START = "<!-- webhooks bench -->";
const END = "<!-- /webhooks bench -->";

const ms = (value: number) => `${value.toFixed(2)} ms`;
const mark = (ok: boolean) => (ok ? "✅" : "❌");

/** Which of issue 35's targets a database's figures miss (empty: all held). */
export function missedWebhookTargets(figures: WebhookFigures): string[] {
  return [
    figures.sale.addedP50Ms > WEBHOOK_TARGETS.addedP50Ms ? "added p50, paced" : "",
    figures.saturated.addedP50Ms > WEBHOOK_TARGETS.addedP50Ms ? "added p50, back to back" : "",
    figures.backlog.eventsPerSecond < WEBHOOK_TARGETS.eventsPerSecond ? "events/s" : "",
    figures.outcomeToDelivery.p95Ms > WEBHOOK_TARGETS.outcomeToDeliveryP95Ms ? "outcome to delivery p95" : "",
  ].filter(Boolean);
}

function section(figures: WebhookFigures[], when: string): string {
  const row = (name: string, cell: (figure: WebhookFigures) => string) =>
    `| ${name} | ${figures.map(cell).join(" | ")} |`;
  const [first] = figures as [WebhookFigures];
  return [
    START,
    "## Webhooks",
    "",
    `${when}, in a process of its own on an empty database (bench/webhooks-worker.ts): the app's own sale writes ` +
      "(`claimSubmission`, then `recordOutcome`, whose trigger writes the event and its deliveries) and the app's " +
      "own dispatcher delivering to two receivers on this host. The sale: " +
      `${first.rounds} rounds of ${first.salesPerBlock} sales one at a time with no endpoint and with two, in turn, ` +
      `the dispatcher delivering meanwhile: one every ${first.salePaceMs} ms, then back to back. ` +
      "Back to back, the embedded database's statements and the dispatcher's share one thread, so there the " +
      "dispatcher's work (claims, records, signing, HTTP) lands on the sales; a call center's instance is far from " +
      "saturated. The backlog: the sales made while no dispatcher runs (every instance " +
      "down), then one started. Outcome to delivery: a sale every 20 ms, from the outcome's commit to the receiver's arrival. " +
      `Machine load (1 minute) after each run: ${figures.map((figure) => `${figure.database} ${figure.loadAverage.toFixed(1)}`).join(", ")}.`,
    "",
    `| figure | ${figures.map((figure) => figure.database).join(" | ")} |`,
    `| --- | ${figures.map(() => "---:").join(" | ")} |`,
    row(
      `sale's writes p50, no endpoint / two, a sale every ${first.salePaceMs} ms`,
      (figure) => `${ms(figure.sale.noneP50Ms)} / ${ms(figure.sale.twoP50Ms)}`,
    ),
    row(
      `sale's writes p95, no endpoint / two, a sale every ${first.salePaceMs} ms`,
      (figure) => `${ms(figure.sale.noneP95Ms)} / ${ms(figure.sale.twoP95Ms)}`,
    ),
    row(
      `added p50, a sale every ${first.salePaceMs} ms (median of the rounds' differences; target ≤ ${WEBHOOK_TARGETS.addedP50Ms} ms)`,
      (figure) =>
        `${ms(figure.sale.addedP50Ms)} ${mark(figure.sale.addedP50Ms <= WEBHOOK_TARGETS.addedP50Ms)}`,
    ),
    row(
      "sale's writes p50, no endpoint / two, back to back",
      (figure) => `${ms(figure.saturated.noneP50Ms)} / ${ms(figure.saturated.twoP50Ms)}`,
    ),
    row(
      `added p50, back to back (median of the rounds' differences; target ≤ ${WEBHOOK_TARGETS.addedP50Ms} ms)`,
      (figure) =>
        `${ms(figure.saturated.addedP50Ms)} ${mark(figure.saturated.addedP50Ms <= WEBHOOK_TARGETS.addedP50Ms)}`,
    ),
    row(
      `backlog delivered, events/s (target ≥ ${WEBHOOK_TARGETS.eventsPerSecond})`,
      (figure) =>
        `${Math.round(figure.backlog.eventsPerSecond)} (${figure.backlog.events} in ${figure.backlog.seconds.toFixed(1)} s) ${mark(figure.backlog.eventsPerSecond >= WEBHOOK_TARGETS.eventsPerSecond)}`,
    ),
    row(
      `outcome to delivery p50 / p95 / max (target p95 ≤ ${WEBHOOK_TARGETS.outcomeToDeliveryP95Ms} ms)`,
      (figure) =>
        `${Math.round(figure.outcomeToDelivery.p50Ms)} / ${Math.round(figure.outcomeToDelivery.p95Ms)} / ${Math.round(figure.outcomeToDelivery.maxMs)} ms ${mark(figure.outcomeToDelivery.p95Ms <= WEBHOOK_TARGETS.outcomeToDeliveryP95Ms)}`,
    ),
    END,
  ].join("\n");
}

/** bench/results/webhooks.json and its section of bench/results/latest.md. */
export function writeWebhookResults(root: string, figures: WebhookFigures[], when: string) {
  writeFileSync(join(root, "bench/results/webhooks.json"), `${JSON.stringify(figures, null, 2)}\n`);
  writeLatestSection(root, section(figures, when), { start: START, end: END });
}
