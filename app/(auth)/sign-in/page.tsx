import type { Metadata, Route } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { signInErrorFrom, signInMessageFor } from "@/lib/errors/sign-in";
import { verifySession } from "@/lib/dal/session";
import { idpSignOutUrl, signInOptions, type SignInOptions } from "@/lib/dal/sign-in-options";
import { safeReturnPath } from "@/lib/safe-return-path";
import { OidcSignInButton } from "./_components/oidc-sign-in-button";
import { SignInAlert } from "./_components/sign-in-alert";
import { SignInForm } from "./_components/sign-in-form";
import { Notice } from "@/components/ui/notice";

export const metadata: Metadata = { title: "Entrar" };

function introFor(options: SignInOptions): string {
  if (options.password && options.oidc) {
    return "Entre com o e-mail e a senha da sua conta de atendimento, ou pelo login da sua empresa.";
  }
  if (options.password) return "Entre com o e-mail e a senha da sua conta de atendimento.";
  if (options.oidc) return "Entre com a conta da sua empresa.";
  return "Este Partner Sales é aberto pelo portal do parceiro: entre por lá.";
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export default async function SignInPage({ searchParams }: PageProps<"/sign-in">) {
  const { callbackUrl, error, signedOut } = await searchParams;
  const returnTo = safeReturnPath(first(callbackUrl));
  if (await verifySession()) redirect(returnTo as Route);

  const options = signInOptions();
  // Inside a portal's frame the app never asks for a password (nor a second factor): the portal signs its agents
  // in, and the app's own sign-in opens in a tab of its own.
  if ((await headers()).get("sec-fetch-dest") === "iframe" && options.password) {
    return (
      <div className="panel">
        <h1 className="text-xl font-semibold text-slate-900">Partner Sales</h1>
        <p className="mt-1 mb-4 text-sm text-slate-600">
          Por segurança, a entrada com e-mail e senha não é feita dentro do portal. Abra a venda novamente
          pelo portal do parceiro, ou entre em uma nova aba.
        </p>
        <a
          href="/sign-in"
          target="_blank"
          rel="noopener"
          className="btn btn-primary block w-full text-center"
        >
          Entrar em uma nova aba
        </a>
      </div>
    );
  }
  // Only a known code picks one of the fixed messages: nothing of the address is ever shown as it came.
  const problem = signInErrorFrom(error);
  const notice = problem ? signInMessageFor(problem) : null;
  const idpSignOut = first(signedOut) === "oidc" && options.oidc ? await idpSignOutUrl() : null;

  return (
    <div className="panel">
      <h1 className="text-xl font-semibold text-slate-900">Partner Sales</h1>
      <p className="mt-1 mb-6 text-sm text-slate-600">{introFor(options)}</p>
      {idpSignOut && options.oidc ? (
        <Notice tone="info" compact as="div" className="mb-6 text-sm">
          <p>Você saiu do Partner Sales. Em um computador compartilhado, saia também da conta da empresa.</p>
          <a href={idpSignOut} className="mt-1 inline-block font-medium text-brand-700 underline">
            Sair também de {options.oidc.name}
          </a>
        </Notice>
      ) : null}
      {options.password ? (
        <SignInForm callbackUrl={returnTo} notice={notice} />
      ) : notice ? (
        <div className="mb-4">
          <SignInAlert>{notice}</SignInAlert>
        </div>
      ) : null}
      {options.oidc ? (
        <>
          {options.password ? (
            <p className="my-4 flex items-center gap-3 text-sm text-slate-500" aria-hidden="true">
              <span className="h-px flex-1 bg-slate-200" />
              ou
              <span className="h-px flex-1 bg-slate-200" />
            </p>
          ) : null}
          <OidcSignInButton name={options.oidc.name} callbackUrl={returnTo} autoFocus={!options.password} />
        </>
      ) : null}
    </div>
  );
}
