import Link from "next/link";
import { StatusBadge } from "../../sales/_components/status-badge";
import { OUTCOMES, PERIODS, type PeriodSummary } from "@/lib/sales/dashboard";
import { formatCount, formatRate, historyLink } from "./figures";

/** Today, 7 and 30 days side by side: sales by outcome, each a link to those sales, and the acceptance rate. */
export function PeriodCards({ periods }: { periods: PeriodSummary[] }) {
  return (
    <div className="grid gap-4 md:grid-cols-3">
      {periods.map((summary) => (
        <section
          key={summary.period}
          aria-labelledby={`period-${summary.period}`}
          className="panel panel-compact"
        >
          <h2 id={`period-${summary.period}`} className="text-lg font-semibold">
            {PERIODS[summary.period].label}
          </h2>
          <dl className="mt-3 space-y-2 text-sm">
            <div className="flex items-baseline justify-between gap-2">
              <dt className="font-medium">Vendas</dt>
              <dd className="text-xl font-semibold tabular-nums">
                <Link href={historyLink(summary)} className="text-brand-700 underline">
                  {formatCount(summary.total)}
                </Link>
              </dd>
            </div>
            {OUTCOMES.map((status) => (
              <div key={status} className="flex items-baseline justify-between gap-2">
                <dt>
                  <StatusBadge status={status} />
                </dt>
                <dd className="tabular-nums">
                  <Link href={historyLink({ ...summary, status })} className="text-brand-700 underline">
                    {formatCount(summary.counts[status])}
                  </Link>
                </dd>
              </div>
            ))}
            <div className="flex items-baseline justify-between gap-2 border-t border-slate-100 pt-2">
              <dt>Taxa de aceitação</dt>
              <dd className="font-semibold tabular-nums">{formatRate(summary.acceptanceRate)}</dd>
            </div>
          </dl>
        </section>
      ))}
    </div>
  );
}
