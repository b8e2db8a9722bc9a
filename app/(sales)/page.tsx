import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { SaleForm } from "@/components/sale-form/sale-form";
import { listPlans } from "@/lib/dal/plans";
import { requireAgent } from "@/lib/dal/session";
import { submitSaleAction } from "@/lib/actions/sales";

export const metadata: Metadata = { title: "Nova venda" };

export default async function NewSalePage() {
  await requireAgent("/");
  return (
    <section
      aria-labelledby="new-sale-title"
      className="mx-auto max-w-3xl space-y-6 lg:has-[[data-offer-script]]:max-w-6xl"
    >
      <h1 id="new-sale-title" className="text-2xl font-semibold">
        Nova venda
      </h1>
      <div className="panel">
        <SaleForm
          plans={listPlans()}
          initialSubmissionId={randomUUID()}
          saleAction={submitSaleAction}
          autoFocus
        />
      </div>
    </section>
  );
}
