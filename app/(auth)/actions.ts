"use server";

import { AuthError, CredentialsSignin } from "next-auth";
import { signIn, signOut } from "@/auth";
import type { ActionState } from "@/lib/action-state";
import { safeReturnPath } from "@/lib/safe-return-path";

export type SignInField = "email" | "password";

const INVALID_CREDENTIALS = "E-mail ou senha incorretos.";

function waitMessage(code: string): string {
  const seconds = Number(code.split(":")[1]) || 60;
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Muitas tentativas sem sucesso. Por segurança, aguarde ${minutes} ${minutes === 1 ? "minuto" : "minutos"} e tente novamente.`;
}

export async function signInAction(
  _previous: ActionState<SignInField>,
  formData: FormData,
): Promise<ActionState<SignInField>> {
  const email = String(formData.get("email") ?? "").trim();
  const password = String(formData.get("password") ?? "");
  const fieldErrors = {
    ...(email ? {} : { email: "Informe o e-mail." }),
    ...(password ? {} : { password: "Informe a senha." }),
  };
  const values = { email };
  if (!email || !password) return { ok: false, fieldErrors, message: null, values };

  try {
    await signIn("credentials", { email, password, redirectTo: safeReturnPath(formData.get("callbackUrl")) });
  } catch (error) {
    if (error instanceof CredentialsSignin) {
      const message = error.code.startsWith("locked:") ? waitMessage(error.code) : INVALID_CREDENTIALS;
      return { ok: false, fieldErrors: {}, message, values };
    }
    if (error instanceof AuthError) {
      return {
        ok: false,
        fieldErrors: {},
        message: "Não foi possível entrar agora. Tente novamente em instantes.",
        values,
      };
    }
    throw error; // the redirect to the page that was asked for
  }
  return { ok: true, data: undefined, message: null };
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/sign-in" });
}
