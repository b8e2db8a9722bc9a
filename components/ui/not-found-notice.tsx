import Link from "next/link";

/** What an address that leads nowhere shows; the page around it gives the landmark (one `<main>` per page). */
export function NotFoundNotice() {
  return (
    <div className="mx-auto max-w-md px-4 py-24 text-center">
      <h1 className="text-2xl font-semibold">Página não encontrada</h1>
      <p className="mt-2 text-slate-600">O endereço acessado não existe.</p>
      <Link href="/" className="mt-6 inline-block font-medium text-brand-700 underline">
        Voltar para o início
      </Link>
    </div>
  );
}
