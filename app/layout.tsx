import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
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

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page, the 404 included, renders per request: its scripts must carry this response's CSP nonce
  // (proxy.ts), which a page prerendered at build time could not know.
  await connection();
  return (
    <html lang="pt-BR">
      <body className="min-h-screen font-sans">{children}</body>
    </html>
  );
}
