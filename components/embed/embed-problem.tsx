"use client";

import { useEffect, type ReactNode } from "react";
import type { AppearanceWarning } from "@/lib/embed-appearance";
import type { EmbedProblemCause } from "@/lib/errors/embed-frame";
import { FrameReport } from "./frame-report";
import { Notice } from "@/components/ui/notice";

/** Why the frame cannot go on, in pt-BR for the agent, and as `partner-sales:error {code}` for the portal. */
export function EmbedProblem({
  problem,
  allowedOrigins,
  warnings,
  action,
  clearToken = false,
}: {
  /** The code with its pt-BR message: from the page, from the answer that named the code, or the frame's own. */
  problem: EmbedProblemCause;
  allowedOrigins: readonly string[];
  warnings?: readonly AppearanceWarning[];
  /** What the agent can do about it (a link), under the message. */
  action?: ReactNode;
  /** Drops `token` from the address, so a token that came in it does not stay in this frame's history. */
  clearToken?: boolean;
}) {
  useEffect(() => {
    if (!clearToken) return;
    const url = new URL(window.location.href);
    url.searchParams.delete("token");
    window.history.replaceState(null, "", `${url.pathname}${url.search}`);
  }, [clearToken]);

  return (
    <FrameReport allowedOrigins={allowedOrigins} problem={problem.code} warnings={warnings} className="p-3">
      <Notice tone="error" as="div" className="text-sm">
        <p>{problem.message}</p>
        {action ? <p className="mt-2 font-medium">{action}</p> : null}
      </Notice>
    </FrameReport>
  );
}
