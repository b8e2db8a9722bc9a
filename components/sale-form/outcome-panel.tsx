import type { SaleResult } from "@/lib/dal/sales";

const TONE: Record<SaleResult["status"], string> = {
  accepted: "border-emerald-300 bg-emerald-50 text-emerald-900",
  rejected: "border-red-300 bg-red-50 text-red-900",
  failed: "border-amber-300 bg-amber-50 text-amber-950",
  unknown: "border-amber-300 bg-amber-50 text-amber-950",
  "in-flight": "border-sky-300 bg-sky-50 text-sky-900",
};

export function OutcomePanel({ result }: { result: SaleResult }) {
  const problem = result.status !== "accepted";
  return (
    <div
      role={problem ? "alert" : "status"}
      data-status={result.status}
      className={`rounded-md border px-4 py-3 ${TONE[result.status]}`}
    >
      <p className="font-semibold">{result.title}</p>
      {result.detail ? <p className="mt-1 text-sm">{result.detail}</p> : null}
      <p className="mt-2 text-xs opacity-80">Protocolo: {result.submissionId}</p>
    </div>
  );
}
