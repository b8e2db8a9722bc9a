import type { Metadata, Route } from "next";
import { redirect } from "next/navigation";
import { verifySession } from "@/lib/dal/session";
import { safeReturnPath } from "@/lib/safe-return-path";
import { SignInForm } from "./_components/sign-in-form";

export const metadata: Metadata = { title: "Entrar" };

export default async function SignInPage({ searchParams }: PageProps<"/sign-in">) {
  const { callbackUrl } = await searchParams;
  const returnTo = safeReturnPath(Array.isArray(callbackUrl) ? callbackUrl[0] : callbackUrl);
  if (await verifySession()) redirect(returnTo as Route);

  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h1 className="text-xl font-semibold text-slate-900">Partner Sales</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600">
        Entre com o e-mail e a senha da sua conta de atendimento.
      </p>
      <SignInForm callbackUrl={returnTo} />
    </div>
  );
}
