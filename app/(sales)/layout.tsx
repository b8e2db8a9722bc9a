import type { ReactNode } from "react";
import { AppHeader } from "@/components/app-header";
import { verifySession } from "@/lib/dal/session";

export default async function SalesLayout({ children }: { children: ReactNode }) {
  const agent = await verifySession();
  return (
    <>
      <AppHeader agent={agent} />
      <main className="mx-auto max-w-7xl px-4 py-8">{children}</main>
    </>
  );
}
