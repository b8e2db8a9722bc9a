import type { ReactNode } from "react";

// No app header: the portal around the frame is the agent's chrome. Every state of the page (the form, each
// problem) is this one screen, so the heading is here.
export default function EmbedLayout({ children }: { children: ReactNode }) {
  return (
    // Named: the portal's page around the frame has a main landmark of its own.
    <main className="bg-white" aria-labelledby="embed-heading">
      <h1 id="embed-heading" className="sr-only">
        Nova venda
      </h1>
      {children}
    </main>
  );
}
