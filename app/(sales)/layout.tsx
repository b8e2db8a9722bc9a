import type { ReactNode } from "react";
import { AppHeader } from "@/components/app-header";

export default function SalesLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <AppHeader />
      <main className="mx-auto max-w-3xl px-4 py-8">{children}</main>
    </>
  );
}
