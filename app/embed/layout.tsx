import type { ReactNode } from "react";

// No app header: the portal around the frame is the agent's chrome.
export default function EmbedLayout({ children }: { children: ReactNode }) {
  return <main className="bg-white">{children}</main>;
}
