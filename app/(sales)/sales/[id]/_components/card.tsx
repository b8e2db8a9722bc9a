import type { ReactNode } from "react";

/** One titled block of the sale page, a region named by its heading. */
export function Card({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="panel">
      <h2 id={id} className="font-medium">
        {title}
      </h2>
      {children}
    </section>
  );
}
