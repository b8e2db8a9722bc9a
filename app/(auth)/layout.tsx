import type { ReactNode } from "react";
import { FrameReport } from "@/components/embed/frame-report";
import { embedSettings } from "@/lib/dal/embed";

export default function AuthLayout({ children }: { children: ReactNode }) {
  // Reached inside a portal's frame too (the embedded page's "Entrar com e-mail e senha"), whose height the
  // portal sets from what the page reports: a frame sized for a one-line problem must grow to this form.
  return (
    <FrameReport allowedOrigins={embedSettings().allowedOrigins}>
      <main className="flex min-h-screen items-center justify-center px-4 py-12">
        <div className="w-full max-w-sm">{children}</div>
      </main>
    </FrameReport>
  );
}
