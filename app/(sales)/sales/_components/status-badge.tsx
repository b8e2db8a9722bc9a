import type { SaleStatus } from "@/lib/db/schema";
import { STATUS_LABELS } from "@/lib/format";

// Colour helps the eye find a status; the word says it (never colour alone).
const TONE: Record<SaleStatus, string> = {
  pending: "bg-sky-100 text-sky-900 ring-sky-300",
  accepted: "bg-emerald-100 text-emerald-900 ring-emerald-300",
  rejected: "bg-red-100 text-red-900 ring-red-300",
  failed: "bg-slate-100 text-slate-800 ring-slate-300",
  unknown: "bg-amber-100 text-amber-950 ring-amber-300",
};

export function StatusBadge({ status }: { status: SaleStatus }) {
  return <span className={`badge ${TONE[status]}`}>{STATUS_LABELS[status]}</span>;
}
