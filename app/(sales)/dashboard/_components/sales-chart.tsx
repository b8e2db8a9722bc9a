import { formatIsoDate, STATUS_LABELS } from "@/lib/format";
import { OUTCOMES, total, type StatusCounts } from "@/lib/sales/dashboard";
import { formatCount } from "./figures";

// The status badges' hues (Tailwind's emerald, red, slate and amber 600), dark enough on white, as classes: the
// page's CSP allows no style attribute, and the bars and the legend's swatches must be the same colours.
const HUES: Record<(typeof OUTCOMES)[number], { bar: string; swatch: string }> = {
  accepted: { bar: "fill-emerald-600", swatch: "bg-emerald-600" },
  rejected: { bar: "fill-red-600", swatch: "bg-red-600" },
  failed: { bar: "fill-slate-500", swatch: "bg-slate-500" },
  unknown: { bar: "fill-amber-600", swatch: "bg-amber-600" },
};

const WIDTH = 800;
const round = (value: number) => Math.round(value * 100) / 100;
const HEIGHT = 260;
const PLOT = { left: 44, right: 8, top: 12, bottom: 28 };

/** A round ceiling for the y axis: 1, 2 or 5 times a power of ten. */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((ceiling) => ceiling >= value)!;
}

/**
 * Sales per day by outcome as stacked bars, drawn on the server (no script). The picture is one image for
 * assistive technology, named and described; the same numbers follow in a table that screen readers read.
 */
export function SalesChart({ days }: { days: { day: string; counts: StatusCounts }[] }) {
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const ceiling = niceCeiling(Math.max(...days.map(({ counts }) => total(counts))));
  const slot = plotWidth / days.length;
  // Coordinates to a hundredth of a unit (an 800-unit-wide picture): more digits only weigh on the page.
  const y = (count: number) => round(PLOT.top + plotHeight - (count / ceiling) * plotHeight);
  const label = (day: string) => formatIsoDate(day).slice(0, 5);

  return (
    <figure className="panel panel-compact space-y-3">
      <figcaption className="text-lg font-semibold">Vendas por dia nos últimos 30 dias</figcaption>
      <ul className="flex flex-wrap gap-4 text-sm" aria-label="Legenda">
        {OUTCOMES.map((status) => (
          <li key={status} className="flex items-center gap-2">
            <span aria-hidden="true" className={`inline-block size-3 rounded-sm ${HUES[status].swatch}`} />
            {STATUS_LABELS[status]}
          </li>
        ))}
      </ul>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby="sales-chart-title sales-chart-description"
        className="h-auto w-full"
      >
        <title id="sales-chart-title">Vendas por dia e resultado, últimos 30 dias</title>
        <desc id="sales-chart-description">
          Barras empilhadas por resultado, uma por dia. Os mesmos números estão na tabela a seguir.
        </desc>
        {[0, ceiling / 2, ceiling].map((tick) => (
          <g key={tick}>
            <line x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(tick)} y2={y(tick)} stroke="#e2e8f0" />
            <text x={PLOT.left - 6} y={y(tick) + 4} textAnchor="end" fontSize="11" fill="#475569">
              {formatCount(tick)}
            </text>
          </g>
        ))}
        {days.map(({ day, counts }, index) => {
          let base = 0;
          const x = round(PLOT.left + index * slot + slot * 0.15);
          return (
            <g key={day}>
              {OUTCOMES.filter((status) => counts[status] > 0).map((status) => {
                const top = y(base + counts[status]);
                const height = round(y(base) - top);
                base += counts[status];
                return (
                  <rect
                    key={status}
                    x={x}
                    y={top}
                    width={round(slot * 0.7)}
                    height={height}
                    className={HUES[status].bar}
                  >
                    <title>{`${formatIsoDate(day)}: ${formatCount(counts[status])} ${STATUS_LABELS[status].toLowerCase()}`}</title>
                  </rect>
                );
              })}
              {index % 5 === 4 || index === 0 ? (
                <text
                  x={round(x + slot * 0.35)}
                  y={HEIGHT - 8}
                  textAnchor="middle"
                  fontSize="11"
                  fill="#475569"
                >
                  {label(day)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <table className="sr-only">
        <caption>Vendas por dia e resultado, últimos 30 dias</caption>
        <thead>
          <tr>
            <th scope="col">Dia</th>
            {OUTCOMES.map((status) => (
              <th key={status} scope="col">
                {STATUS_LABELS[status]}
              </th>
            ))}
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {days.map(({ day, counts }) => (
            <tr key={day}>
              <th scope="row">{formatIsoDate(day)}</th>
              {OUTCOMES.map((status) => (
                <td key={status}>{formatCount(counts[status])}</td>
              ))}
              <td>{formatCount(total(counts))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
