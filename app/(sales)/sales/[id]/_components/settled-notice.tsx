import type { SaleDetail } from "@/lib/dal/sales";
import { formatDateTime } from "@/lib/format";
import { SETTLEMENT_WORDS } from "@/lib/sales/settlement";
import { Notice } from "@/components/ui/notice";

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
    return <Notice tone="success">Conferência salva: {words.outcome}.</Notice>;
  }
  return (
    <Notice tone="warning">
      Nada foi alterado:{" "}
      {words && sale.settledAt
        ? `esta venda já tinha sido conferida por ${sale.settlerName ?? "outro supervisor"} em ${formatDateTime(sale.settledAt, timeZone)}; ${words.outcome}.`
        : "esta venda não está mais a confirmar."}
    </Notice>
  );
}
