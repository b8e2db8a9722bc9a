import Link from "next/link";
import { signOutAction, signOutEverywhereAction } from "@/lib/actions/auth";
import type { SessionAgent } from "@/lib/dal/session";

export function AppHeader({ agent }: { agent: SessionAgent | null }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-x-4 gap-y-2 px-4 py-3">
        <Link href="/" className="flex items-center gap-2 font-semibold text-brand-800">
          <svg aria-hidden="true" viewBox="0 0 32 32" className="size-7">
            <rect width="32" height="32" rx="7" fill="currentColor" />
            <path
              d="M9 22V10h7.5a4.5 4.5 0 0 1 0 9H12.5M20 22l-3.5-3"
              fill="none"
              stroke="#fff"
              strokeWidth="2.6"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
          Partner Sales
        </Link>
        {agent ? (
          <div className="flex items-center gap-4 text-sm">
            <nav aria-label="Principal" className="flex gap-4">
              <Link href="/" className="text-slate-700 hover:text-brand-700">
                Nova venda
              </Link>
              <Link href="/sales" className="text-slate-700 hover:text-brand-700">
                Vendas
              </Link>
              {agent.role === "supervisor" ? (
                <Link href="/dashboard" className="text-slate-700 hover:text-brand-700">
                  Painel
                </Link>
              ) : null}
              <Link href="/account" className="text-slate-700 hover:text-brand-700">
                Minha conta
              </Link>
            </nav>
            <span className="text-slate-500" title={agent.email}>
              {agent.name}
              {agent.role === "supervisor" ? " · supervisão" : ""}
            </span>
            <form action={signOutAction}>
              <button type="submit" className="font-medium text-brand-700 hover:underline">
                Sair
              </button>
            </form>
            <form action={signOutEverywhereAction}>
              <button type="submit" className="text-slate-600 hover:text-brand-700 hover:underline">
                Sair de todos os dispositivos
              </button>
            </form>
          </div>
        ) : null}
      </div>
    </header>
  );
}
