import type { Route } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { settleSaleAction } from "@/lib/actions/sales";
import type { SaleDetail } from "@/lib/dal/sales";
import type { SaleResolution } from "@/lib/db/schema";
import { formatCpf, formatDateTime } from "@/lib/format";
import { SALE_RESOLUTIONS, SETTLEMENT_WORDS } from "@/lib/sales/settlement";

const PRIMARY = buttonClass({ size: "sm" });
const SECONDARY = buttonClass({ variant: "secondary", size: "sm" });

/**
 * Settling an `unknown` sale, in two steps rendered by the server (no script needed): what to ask the provider and
 * the choice, then (`?settle=…`) the choice spelled out with its consequence, Confirmar or Voltar.
 */
export function SettlePanel({
  sale,
  step,
  timeZone,
}: {
  sale: SaleDetail;
  step: SaleResolution | null;
  timeZone: string;
}) {
  const saleUrl = `/sales/${sale.submissionId}`;
  const askFor: [string, string][] = [
    ["CPF", formatCpf(sale.request.customerDocument)],
    ["Plano", sale.planName],
    ["Horário do envio", formatDateTime(sale.createdAt, timeZone)],
    ["ID do cliente no parceiro", sale.request.externalId ?? "não informado"],
  ];
  return (
    <section aria-labelledby="settle-title" className="rounded-lg border border-amber-300 bg-amber-50 p-6">
      <h2 id="settle-title" className="font-medium">
        Conferir com o fornecedor
      </h2>
      <p className="mt-1 text-sm text-slate-800">
        O fornecedor não confirmou esta venda e não conhece o nosso protocolo. Pergunte a ele se registrou uma
        venda com estes dados:
      </p>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        {askFor.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-slate-600">{label}</dt>
            <dd className="font-medium break-words">{value}</dd>
          </div>
        ))}
      </dl>
      {step ? (
        <form
          action={settleSaleAction}
          aria-labelledby="confirm-title"
          className="mt-4 border-t border-amber-300 pt-4"
        >
          <h3 id="confirm-title" className="font-medium">
            Confirmar: {SETTLEMENT_WORDS[step].finding}?
          </h3>
          <p id="confirm-consequence" className="mt-1 text-sm">
            <strong>{SETTLEMENT_WORDS[step].consequence}</strong> O seu nome e o horário ficam gravados na
            venda, e não é possível desfazer.
          </p>
          <input type="hidden" name="submissionId" value={sale.submissionId} />
          <input type="hidden" name="resolution" value={step} />
          <div className="mt-3 flex flex-wrap gap-3">
            {/* The step is reached by choosing: focus lands here, and the button reads out the consequence. */}
            <button type="submit" autoFocus aria-describedby="confirm-consequence" className={PRIMARY}>
              Confirmar
            </button>
            <Link href={saleUrl as Route} className={SECONDARY}>
              Voltar
            </Link>
          </div>
        </form>
      ) : (
        <div className="mt-4 border-t border-amber-300 pt-4">
          <p id="settle-question" className="text-sm font-medium">
            O fornecedor registrou a venda?
          </p>
          <div className="mt-2 flex flex-wrap gap-3">
            {SALE_RESOLUTIONS.map((resolution) => (
              <Link
                key={resolution}
                href={`${saleUrl}?settle=${resolution}` as Route}
                aria-describedby="settle-question"
                className={resolution === "registered" ? PRIMARY : SECONDARY}
              >
                {SETTLEMENT_WORDS[resolution].choice}
              </Link>
            ))}
          </div>
        </div>
      )}
    </section>
  );
}
