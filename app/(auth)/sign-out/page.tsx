import type { Metadata } from "next";
import Link from "next/link";
import { verifySession } from "@/lib/dal/session";
import { signOutAction } from "@/lib/actions/auth";

export const metadata: Metadata = { title: "Sair" };

/**
 * The sign-out confirmation, in place of the English one Auth.js renders at GET /api/auth/signout (auth.ts points
 * `pages.signOut` here). Signing out is a POST, the header's "Sair" included: this page only asks.
 */
export default async function SignOutPage() {
  const agent = await verifySession();
  if (!agent) {
    return (
      <div className="panel">
        <h1 className="text-xl font-semibold text-slate-900">Você saiu do Partner Sales</h1>
        <p className="mt-1 mb-4 text-sm text-slate-600">Nenhuma sessão está aberta neste navegador.</p>
        <Link href="/sign-in" className="btn btn-primary block w-full text-center">
          Entrar
        </Link>
      </div>
    );
  }
  return (
    <div className="panel">
      <h1 className="text-xl font-semibold text-slate-900">Sair do Partner Sales?</h1>
      <p className="mt-1 mb-4 text-sm text-slate-600">Você está conectado como {agent.name}.</p>
      <form action={signOutAction}>
        <button type="submit" className="btn btn-primary w-full">
          Sair
        </button>
      </form>
      <Link href="/" className="mt-3 block text-center text-sm font-medium text-brand-700 underline">
        Voltar para a nova venda
      </Link>
    </div>
  );
}
