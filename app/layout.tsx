import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Partner Sales", template: "%s · Partner Sales" },
  description: "Venda de assinaturas pela central de atendimento do parceiro.",
  robots: { index: false, follow: false },
};

export const viewport: Viewport = {
  themeColor: "#1d5fd1",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="pt-BR">
      <body className="min-h-screen font-sans">{children}</body>
    </html>
  );
}
