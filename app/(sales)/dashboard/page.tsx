import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AgentTable } from "./_components/agent-table";
import { formatCount } from "./_components/figures";
import { IntegrationTable } from "./_components/integration-table";
import { PeriodCards } from "./_components/period-cards";
import { SalesChart } from "./_components/sales-chart";
import { noticeClass } from "@/components/ui/notice";
import { readDashboard } from "@/lib/dal/dashboard";
import { requireAgent } from "@/lib/dal/session";
import { isPeriod } from "@/lib/sales/dashboard";

export const metadata: Metadata = { title: "Painel" };

export default async function DashboardPage({ searchParams }: PageProps<"/dashboard">) {
  const { period } = await searchParams;
  const chosen = isPeriod(period) ? period : "today";
  const agent = await requireAgent(chosen === "today" ? "/dashboard" : `/dashboard?period=${chosen}`);
  const dashboard = await readDashboard(agent, chosen);
  // Supervisors only: to anyone else the page does not exist.
  if (!dashboard) notFound();

  return (
    <section aria-labelledby="dashboard-title" className="space-y-6">
      <h1 id="dashboard-title" className="text-2xl font-semibold">
        Painel
      </h1>
      <p className={noticeClass(dashboard.unknownToSettle > 0 ? "warning" : "info")}>
        {dashboard.unknownToSettle === 0 ? (
          "Nenhuma venda a confirmar."
        ) : (
          <>
            <Link href="/sales?status=unknown" className="font-semibold underline">
              {dashboard.unknownToSettle === 1
                ? "1 venda a confirmar"
                : `${formatCount(dashboard.unknownToSettle)} vendas a confirmar`}
            </Link>{" "}
            {dashboard.unknownToSettle === 1 ? "espera" : "esperam"} a conferência com o fornecedor.
          </>
        )}
      </p>
      <PeriodCards periods={dashboard.periods} />
      <SalesChart days={dashboard.days} />
      <AgentTable period={dashboard.period} agents={dashboard.agents} />
      {dashboard.integrations.length > 0 ? (
        <IntegrationTable period={dashboard.period} integrations={dashboard.integrations} />
      ) : null}
    </section>
  );
}
