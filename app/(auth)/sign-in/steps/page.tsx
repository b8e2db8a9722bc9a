import type { Metadata, Route } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import {
  cancelStepsAction,
  changePasswordStepAction,
  confirmKeyStepAction,
  confirmTotpStepAction,
  finishStepsAction,
  keyAssertionOptionsStepAction,
  keyRegistrationOptionsStepAction,
  startTotpStepAction,
  verifyKeyStepAction,
  verifyRecoveryCodeStepAction,
  verifyTotpStepAction,
} from "@/lib/actions/sign-in-steps";
import { signInErrorPath } from "@/lib/errors/sign-in";
import { signInStepsView } from "@/lib/dal/second-factor";
import { Button } from "@/components/ui/button";
import { CodeForm } from "@/components/second-factor/code-form";
import { KeyEnrolment } from "@/components/second-factor/key-enrolment";
import { NewPasswordForm } from "@/components/second-factor/new-password-form";
import { SecurityKeyButton } from "@/components/second-factor/security-key-button";
import { TotpEnrolment } from "@/components/second-factor/totp-enrolment";
import { Notice } from "@/components/ui/notice";

export const metadata: Metadata = { title: "Verificação" };

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function FinishButton({ label = "Continuar" }: { label?: string }) {
  return (
    <form action={finishStepsAction}>
      <Button type="submit" block>
        {label}
      </Button>
    </form>
  );
}

function Cancel() {
  return (
    <form action={cancelStepsAction} className="mt-6 text-center">
      <button type="submit" className="text-sm text-slate-600 underline hover:text-brand-700">
        Cancelar e voltar para a entrada
      </button>
    </form>
  );
}

/** A password sign-in's steps after the password: the second factor, a new password, an enrolment. */
export default async function SignInStepsPage({ searchParams }: PageProps<"/sign-in/steps">) {
  // Inside a portal's frame nothing asks for a password or a second factor: the portal signs its agents in.
  if ((await headers()).get("sec-fetch-dest") === "iframe") redirect("/sign-in" as Route);
  const { factor, help } = await searchParams;
  const view = await signInStepsView({ showTotp: first(factor) === "totp" });
  if (!view) redirect(signInErrorPath("steps_expired") as Route);
  const { step, factors } = view;

  if (step === "verify") {
    const recovery = first(help) === "recovery" || (factors.totp === 0 && factors.webauthn === 0);
    return (
      <div className="panel">
        <h1 className="text-xl font-semibold text-slate-900">Verificação em duas etapas</h1>
        <p className="mt-1 mb-6 text-sm text-slate-600">
          {recovery
            ? "Digite um dos seus códigos de recuperação."
            : "Confirme que é você com o segundo fator cadastrado na sua conta."}
        </p>
        <div className="space-y-6">
          {recovery ? (
            <CodeForm action={verifyRecoveryCodeStepAction} kind="recovery_code" autoFocus />
          ) : (
            <>
              {factors.webauthn > 0 ? (
                <SecurityKeyButton
                  mode="verify"
                  label="Usar chave de segurança"
                  variant={factors.totp > 0 ? "secondary" : "primary"}
                  options={keyAssertionOptionsStepAction}
                  submit={verifyKeyStepAction}
                />
              ) : null}
              {factors.totp > 0 ? <CodeForm action={verifyTotpStepAction} kind="totp" autoFocus /> : null}
            </>
          )}
          <p className="text-sm">
            {recovery ? (
              factors.totp + factors.webauthn > 0 ? (
                <a href="/sign-in/steps" className="text-brand-700 underline">
                  Usar o aplicativo ou a chave de segurança
                </a>
              ) : null
            ) : factors.recoveryCodes > 0 ? (
              <a href="/sign-in/steps?help=recovery" className="text-brand-700 underline">
                Sem o aplicativo ou a chave? Usar um código de recuperação
              </a>
            ) : (
              <span className="text-slate-600">
                Sem o aplicativo ou a chave? Peça ao suporte para redefinir a verificação.
              </span>
            )}
          </p>
        </div>
        <Cancel />
      </div>
    );
  }

  if (step === "change_password") {
    return (
      <div className="panel">
        <h1 className="text-xl font-semibold text-slate-900">Crie a sua senha</h1>
        <p className="mt-1 mb-6 text-sm text-slate-600">
          A senha que você usou foi definida por outra pessoa. Antes de continuar, escolha uma senha só sua.
        </p>
        <NewPasswordForm
          action={changePasswordStepAction}
          askCurrent={false}
          submitLabel="Salvar e continuar"
          email={view.email}
        />
        <Cancel />
      </div>
    );
  }

  if (step === "enrol") {
    const { totp } = view;
    return (
      <div className="panel">
        <h1 className="text-xl font-semibold text-slate-900">Cadastre um segundo fator</h1>
        <p className="mt-1 mb-6 text-sm text-slate-600">
          Sua conta precisa de uma segunda verificação além da senha. Escolha uma das formas abaixo.
        </p>
        {totp ? (
          <TotpEnrolment
            qr={totp.qr}
            secret={totp.secret}
            action={confirmTotpStepAction}
            askCurrent={false}
            after={<FinishButton />}
          />
        ) : (
          <div className="space-y-6">
            <section aria-labelledby="enrol-key" className="space-y-2">
              <h2 id="enrol-key" className="text-base font-semibold text-slate-900">
                Chave de segurança ou passkey
              </h2>
              <p className="text-sm text-slate-600">
                Windows Hello do computador, uma chave USB: não precisa de celular.
              </p>
              <KeyEnrolment
                options={keyRegistrationOptionsStepAction}
                submit={confirmKeyStepAction}
                askCurrent={false}
                after={<FinishButton />}
              />
            </section>
            <section aria-labelledby="enrol-totp" className="space-y-2">
              <h2 id="enrol-totp" className="text-base font-semibold text-slate-900">
                Aplicativo autenticador
              </h2>
              <p className="text-sm text-slate-600">Um aplicativo de códigos no celular ou no computador.</p>
              <form action={startTotpStepAction}>
                <Button type="submit" variant="secondary" block>
                  Usar aplicativo autenticador
                </Button>
              </form>
            </section>
          </div>
        )}
        <Cancel />
      </div>
    );
  }

  return (
    <div className="panel">
      <h1 className="text-xl font-semibold text-slate-900">Tudo pronto</h1>
      <Notice tone="success" compact className="mt-2 mb-6 text-sm">
        A verificação foi concluída.
      </Notice>
      <FinishButton />
    </div>
  );
}
