import type { Metadata } from "next";
import { listPlans } from "@/lib/dal/plans";
import { requireAgent } from "@/lib/dal/session";

export const metadata: Metadata = { title: "Nova venda" };
export const dynamic = "force-dynamic";

export default async function NewSalePage() {
  await requireAgent("/");
  const plans = listPlans();
  return (
    <section aria-labelledby="new-sale-title" className="space-y-6">
      <h1 id="new-sale-title" className="text-2xl font-semibold">
        Nova venda
      </h1>
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h2 className="text-lg font-medium">Planos disponíveis</h2>
        {plans ? (
          <ul className="mt-4 divide-y divide-slate-100">
            {plans.map((plan) => (
              <li key={plan.id} className="py-3">
                <p className="font-medium">{plan.name}</p>
                {plan.description ? <p className="text-sm text-slate-600">{plan.description}</p> : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600">
            Nenhum catálogo de planos configurado: informe o identificador (UUID) do plano ao vender.
          </p>
        )}
      </div>
    </section>
  );
}
