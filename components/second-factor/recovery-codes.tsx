import type { ReactNode } from "react";

/** Ten codes shown once, to write down or print; the page never shows them again. */
export function RecoveryCodes({ codes, children }: { codes: string[]; children?: ReactNode }) {
  return (
    <section aria-labelledby="recovery-codes-title" className="space-y-3">
      <h2 id="recovery-codes-title" className="text-base font-semibold text-slate-900" tabIndex={-1}>
        Guarde os seus códigos de recuperação
      </h2>
      <p className="text-sm text-slate-600">
        Sem o aplicativo ou a chave, cada código permite entrar uma vez. Anote-os ou imprima-os e guarde em
        lugar seguro: eles não serão mostrados de novo.
      </p>
      <ol className="recovery-codes grid grid-cols-2 gap-x-6 gap-y-1 rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-sm text-slate-900">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      {children}
    </section>
  );
}
