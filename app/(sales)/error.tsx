"use client";

import Link from "next/link";

export default function SalesError({ reset }: { error: Error; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-white p-6 shadow-sm">
      <h1 className="text-xl font-semibold">Algo deu errado nesta página</h1>
      <p className="mt-2 text-slate-700">
        Se você estava enviando uma venda, confira em{" "}
        <Link href="/sales" className="text-brand-700 underline">
          Vendas
        </Link>{" "}
        antes de enviá-la de novo.
      </p>
      <button
        type="button"
        onClick={reset}
        className="mt-4 rounded-md bg-brand-700 px-4 py-2 font-medium text-white hover:bg-brand-800"
      >
        Tentar de novo
      </button>
    </div>
  );
}
