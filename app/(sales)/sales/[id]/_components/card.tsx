import type { ReactNode } from "react";

/** One titled block of the sale page, a region named by its heading. */
export function Card({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h2 id={id} className="font-medium">
        {title}
      </h2>
      {children}
    </section>
  );
}
