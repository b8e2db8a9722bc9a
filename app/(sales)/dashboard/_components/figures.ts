import type { Route } from "next";
import type { StatusFilter } from "@/lib/sales/history-filter";
import { historyQuery } from "@/lib/sales/history-filter";

const number = new Intl.NumberFormat("pt-BR");
const percent = new Intl.NumberFormat("pt-BR", { style: "percent", maximumFractionDigits: 1 });

export const formatCount = (count: number) => number.format(count);
export const formatRate = (rate: number | null) => (rate === null ? "—" : percent.format(rate));

/** The history under the same days (and agent, and status) as a figure of the dashboard. */
export function historyLink(filter: {
  from: string;
  to: string;
  agentId?: string;
  status?: StatusFilter;
}): Route {
  return `/sales${historyQuery({ filter })}` as Route;
}
