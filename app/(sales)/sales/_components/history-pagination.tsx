import type { Route } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { historyQuery, type HistoryFilter } from "@/lib/sales/history-filter";

/** "Mais recentes" / "Mais antigas": each continues from the page's first or last sale, under the same filter. */
export function HistoryPagination({
  filter,
  newerThan,
  olderThan,
}: {
  filter: HistoryFilter;
  newerThan: string | null;
  olderThan: string | null;
}) {
  if (!newerThan && !olderThan) return null;
  const link = buttonClass({ variant: "secondary", size: "sm" });
  return (
    <nav aria-label="Páginas da lista" className="flex justify-between gap-4 text-sm">
      {newerThan ? (
        <Link
          href={
            `/sales${historyQuery({ filter, cursor: { direction: "newer", submissionId: newerThan } })}` as Route
          }
          className={link}
        >
          ← Mais recentes
        </Link>
      ) : (
        <span />
      )}
      {olderThan ? (
        <Link
          href={
            `/sales${historyQuery({ filter, cursor: { direction: "older", submissionId: olderThan } })}` as Route
          }
          className={link}
        >
          Mais antigas →
        </Link>
      ) : null}
    </nav>
  );
}
