"use client";

import type { ReactNode } from "react";

/** What an error boundary shows: what happened, in pt-BR, and a way to try again. */
export function ErrorNotice({
  title,
  children,
  reset,
}: {
  title: string;
  children: ReactNode;
  reset: () => void;
}) {
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-white p-6 shadow-sm">
      <h1 className="text-xl font-semibold">{title}</h1>
      <p className="mt-2 text-slate-700">{children}</p>
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
