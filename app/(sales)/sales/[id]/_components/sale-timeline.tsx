import type { SaleDetail } from "@/lib/dal/sales";
import { formatDateTime } from "@/lib/format";
import { saleTimeline } from "@/lib/sales/sale-timeline";
import { Card } from "./card";

export function SaleTimeline({ sale, timeZone }: { sale: SaleDetail; timeZone: string }) {
  return (
    <Card id="timeline-title" title="Linha do tempo">
      <ol
        aria-labelledby="timeline-title"
        className="mt-3 space-y-3 border-l-2 border-slate-200 pl-4 text-sm"
      >
        {saleTimeline(sale, sale.upstreamTimeoutMs).map((entry) => (
          <li key={entry.kind}>
            {entry.at ? (
              <time dateTime={entry.at.toISOString()} className="block text-slate-500">
                {formatDateTime(entry.at, timeZone)}
              </time>
            ) : null}
            {entry.text}
          </li>
        ))}
      </ol>
    </Card>
  );
}
