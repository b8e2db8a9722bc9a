import type { Route } from "next";
import Link from "next/link";
import type { SaleStatus } from "@/lib/db/schema";
import { STATUS_LABELS } from "@/lib/format";
import { historyQuery, STATUS_FILTERS, type HistoryFilter } from "@/lib/sales/history-filter";

const number = new Intl.NumberFormat("pt-BR");

/** A link among several that pick one view; the picked one is `aria-current="page"`. */
export const chipClassName =
  "rounded-full border border-slate-300 px-3 py-1 text-slate-700 hover:border-brand-600 aria-[current=page]:border-brand-700 aria-[current=page]:bg-brand-700 aria-[current=page]:text-white";

/**
 * One link per status, each with how many sales the rest of the filter holds in it; a search too broad to count
 * (`counts` null) says so on "Todas" instead.
 */
export function StatusChips({
  filter,
  counts,
  countCap,
}: {
  filter: HistoryFilter;
  counts: Record<SaleStatus, number> | null;
  countCap: number;
}) {
  const total = counts ? Object.values(counts).reduce((sum, count) => sum + count, 0) : null;
  return (
    <nav aria-label="Filtrar por situação" className="flex flex-wrap gap-2 text-sm">
      {[undefined, ...STATUS_FILTERS].map((status) => (
        <Link
          key={status ?? "all"}
          href={`/sales${historyQuery({ filter: { ...filter, status } })}` as Route}
          aria-current={status === filter.status ? "page" : undefined}
          className={chipClassName}
        >
          {status ? STATUS_LABELS[status] : "Todas"}
          {counts && total !== null ? (
            <span className="tabular-nums"> ({number.format(status ? counts[status] : total)})</span>
          ) : status ? null : (
            <span className="tabular-nums"> (mais de {number.format(countCap)})</span>
          )}
        </Link>
      ))}
    </nav>
  );
}
