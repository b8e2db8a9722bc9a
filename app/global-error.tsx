"use client";

import AppError from "./error";
import "./globals.css";

// When the root layout itself fails, this replaces it, so it brings its own <html> and <body>.
export default function GlobalError(props: { error: Error; reset: () => void }) {
  return (
    <html lang="pt-BR">
      <body className="min-h-screen font-sans">
        <AppError {...props} />
      </body>
    </html>
  );
}
