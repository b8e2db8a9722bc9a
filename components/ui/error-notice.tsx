"use client";

import type { ReactNode } from "react";
import { Button } from "./button";

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
    <div role="alert" className="panel border-red-200">
      <h1 className="text-xl font-semibold">{title}</h1>
      <p className="mt-2 text-slate-700">{children}</p>
      <Button onClick={reset} className="mt-4">
        Tentar de novo
      </Button>
    </div>
  );
}
