"use client";

import { ErrorNotice } from "@/components/ui/error-notice";

// Any page whose server work failed (the database out of reach, for one): a pt-BR page, never a bare 500.
export default function AppError({ reset }: { error: Error; reset: () => void }) {
  return (
    <main className="mx-auto max-w-md px-4 py-16">
      <ErrorNotice title="Serviço temporariamente indisponível" reset={reset}>
        Não foi possível carregar esta página agora. Tente novamente em instantes.
      </ErrorNotice>
    </main>
  );
}
