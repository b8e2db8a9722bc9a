import type { ReactNode } from "react";

/** Why a sign-in did not happen, announced as it appears. */
export function SignInAlert({ children }: { children: ReactNode }) {
  return (
    <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
      {children}
    </p>
  );
}
