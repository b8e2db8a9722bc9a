import type { Metadata } from "next";
import {
  changePasswordAction,
  confirmKeyAction,
  confirmTotpAction,
  keyRegistrationOptionsAction,
  regenerateCodesAction,
  removeFactorAction,
  startTotpAction,
} from "@/lib/actions/account";
import { accountView } from "@/lib/dal/second-factor";
import { appTimeZone } from "@/lib/dal/sales";
import { requireAgent } from "@/lib/dal/session";
import { formatDateTime } from "@/lib/format";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { KeyEnrolment } from "@/components/second-factor/key-enrolment";
import { NewPasswordForm } from "@/components/second-factor/new-password-form";
import { PasswordConfirmForm } from "@/components/second-factor/password-confirm-form";
import { TotpEnrolment } from "@/components/second-factor/totp-enrolment";

export const metadata: Metadata = { title: "Minha conta" };

const KIND_NAMES = { totp: "Aplicativo autenticador", webauthn: "Chave de segurança" } as const;
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The agent's own password and second factors (a password session's; the other doors keep theirs). */
export default async function AccountPage({ searchParams }: PageProps<"/account">) {
  const session = await requireAgent("/account");
  const { add, removed } = await searchParams;
  const account = await accountView(session, { showTotp: first(add) === "totp" });

  if (!account) {
    return (
      <section aria-labelledby="account-title" className="max-w-2xl space-y-4">
        <h1 id="account-title" className="text-2xl font-semibold text-slate-900">
          Minha conta
        </h1>
        <Notice tone="info" as="div">
          <p>
            Você entrou pelo acesso da sua empresa (login da empresa ou portal do parceiro). A senha e a
            verificação em duas etapas dessa entrada são cuidadas por lá.
          </p>
        </Notice>
      </section>
    );
  }

  const { factors, required, totp } = account;
  const timeZone = appTimeZone();
  const done = (
    <a href="/account" className="btn btn-primary">
      Concluir
    </a>
  );

  return (
    <div className="max-w-2xl space-y-10">
      <h1 className="text-2xl font-semibold text-slate-900">Minha conta</h1>
      {first(removed) ? (
        <Notice tone="success" compact>
          Fator removido.
        </Notice>
      ) : null}

      <section aria-labelledby="password-title" className="panel space-y-4">
        <h2 id="password-title" className="text-lg font-semibold text-slate-900">
          Alterar senha
        </h2>
        <p className="text-sm text-slate-600">
          Ao alterar a senha, as suas sessões em outros dispositivos são encerradas.
        </p>
        <NewPasswordForm
          action={changePasswordAction}
          askCurrent
          submitLabel="Alterar senha"
          email={account.email}
        />
      </section>

      <section aria-labelledby="factors-title" className="panel space-y-4">
        <h2 id="factors-title" className="text-lg font-semibold text-slate-900">
          Verificação em duas etapas
        </h2>
        <p className="text-sm text-slate-600">
          {required
            ? "Obrigatória para a sua conta: ao entrar com senha, você confirma com um destes fatores."
            : "Ao entrar com senha, você confirma com um destes fatores."}
        </p>
        {factors.length === 0 ? (
          <p className="text-sm text-slate-700">Nenhum fator cadastrado.</p>
        ) : (
          <ul className="divide-y divide-slate-200 rounded-md border border-slate-200">
            {factors.map((factor) => (
              <li key={factor.id} className="flex flex-wrap items-start justify-between gap-3 p-3">
                <div className="text-sm">
                  <p className="font-medium text-slate-900">{factor.label}</p>
                  <p className="text-slate-600">
                    {KIND_NAMES[factor.kind]} · cadastrado em{" "}
                    {formatDateTime(factor.createdAt, timeZone, "minutes")}
                    {factor.lastUsedAt
                      ? ` · último uso em ${formatDateTime(factor.lastUsedAt, timeZone, "minutes")}`
                      : ""}
                  </p>
                </div>
                <PasswordConfirmForm
                  id={`remove-${factor.id}`}
                  action={removeFactorAction}
                  open={`Remover ${factor.label}`}
                  submit="Remover"
                  hidden={{ factorId: factor.id }}
                />
              </li>
            ))}
          </ul>
        )}

        <div id="add-factor" className="space-y-4 border-t border-slate-200 pt-4">
          <h3 className="text-base font-semibold text-slate-900">Adicionar um fator</h3>
          {totp ? (
            <TotpEnrolment
              qr={totp.qr}
              secret={totp.secret}
              action={confirmTotpAction}
              askCurrent
              after={done}
            />
          ) : (
            <div className="grid gap-6 sm:grid-cols-2">
              <div className="space-y-2">
                <h4 className="text-sm font-semibold text-slate-900">Chave de segurança ou passkey</h4>
                <p className="text-sm text-slate-600">Windows Hello, chave USB: não precisa de celular.</p>
                <KeyEnrolment
                  options={keyRegistrationOptionsAction}
                  submit={confirmKeyAction}
                  askCurrent
                  after={done}
                />
              </div>
              <div className="space-y-2">
                <h4 className="text-sm font-semibold text-slate-900">Aplicativo autenticador</h4>
                <p className="text-sm text-slate-600">
                  Códigos de 6 números num aplicativo do celular ou do computador.
                </p>
                <form action={startTotpAction}>
                  <Button type="submit" variant="secondary" block>
                    Adicionar aplicativo autenticador
                  </Button>
                </form>
              </div>
            </div>
          )}
        </div>

        {factors.length > 0 ? (
          <div className="space-y-2 border-t border-slate-200 pt-4">
            <h3 className="text-base font-semibold text-slate-900">Códigos de recuperação</h3>
            <p className="text-sm text-slate-600">
              {account.recoveryCodes === 1
                ? "Resta 1 código sem uso."
                : `Restam ${account.recoveryCodes} códigos sem uso.`}{" "}
              Gerar novos códigos invalida os anteriores.
            </p>
            <PasswordConfirmForm
              id="regenerate"
              action={regenerateCodesAction}
              open="Gerar novos códigos"
              submit="Gerar"
            />
          </div>
        ) : null}
      </section>
    </div>
  );
}
