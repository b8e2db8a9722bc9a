import type { ReactNode } from "react";
import { Notice } from "@/components/ui/notice";

/** Why a sign-in did not happen, announced as it appears. */
export function SignInAlert({ children }: { children: ReactNode }) {
  return (
    <Notice tone="error" compact className="text-sm">
      {children}
    </Notice>
  );
}
