import type { SaleDetail } from "@/lib/dal/sales";
import { formatDateTime } from "@/lib/format";
import { SETTLEMENT_WORDS } from "@/lib/sales/settlement";

/**
 * After the confirmation step: "settled now", or — a second confirmation that came too late (another tab, another
 * supervisor, a double submit) — who got there first and when. Words come from the sale as stored, not the URL.
 */
export function SettledNotice({
  sale,
  settled,
  timeZone,
}: {
  sale: SaleDetail;
  settled: "now" | "earlier";
  timeZone: string;
}) {
  const words = sale.resolution ? SETTLEMENT_WORDS[sale.resolution] : null;
  if (settled === "now") {
    if (!words) return null;
    return (
      <p
        role="status"
        className="rounded-md border border-emerald-300 bg-emerald-50 px-4 py-3 text-emerald-900"
      >
        Conferência salva: {words.outcome}.
      </p>
    );
  }
  return (
    <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-amber-950">
      Nada foi alterado:{" "}
      {words && sale.resolvedAt
        ? `esta venda já tinha sido conferida por ${sale.resolverName ?? "outro supervisor"} em ${formatDateTime(sale.resolvedAt, timeZone)}; ${words.outcome}.`
        : "esta venda não está mais a confirmar."}
    </p>
  );
}
