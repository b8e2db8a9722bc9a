"use client";

import Link from "next/link";
import { ErrorNotice } from "@/components/ui/error-notice";

export default function SalesError({ reset }: { error: Error; reset: () => void }) {
  return (
    <ErrorNotice title="Algo deu errado nesta página" reset={reset}>
      Se você estava enviando uma venda, confira em{" "}
      <Link href="/sales" className="text-brand-700 underline">
        Vendas
      </Link>{" "}
      antes de enviá-la de novo.
    </ErrorNotice>
  );
}
