"use client";

// Any page whose server work failed (the database out of reach, for one): a pt-BR page, never a bare 500.
export default function AppError({ reset }: { error: Error; reset: () => void }) {
  return (
    <main role="alert" className="mx-auto max-w-md px-4 py-16 text-center">
      <h1 className="text-xl font-semibold">Serviço temporariamente indisponível</h1>
      <p className="mt-2 text-slate-700">
        Não foi possível carregar esta página agora. Tente novamente em instantes.
      </p>
      <button
        type="button"
        onClick={reset}
        className="mt-4 rounded-md bg-brand-700 px-4 py-2 font-medium text-white hover:bg-brand-800"
      >
        Tentar de novo
      </button>
    </main>
  );
}
