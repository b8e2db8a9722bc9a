"use client";

import { useEffect } from "react";
import { userMessageFor, type ErrorCode } from "@/lib/errors";
import { postToParent } from "./parent-channel";

/** Why the frame cannot go on, in pt-BR for the agent, and as `partner-sales:error {code}` for the portal. */
export function EmbedProblem({
  code,
  allowedOrigins,
  clearAddress = false,
}: {
  code: ErrorCode;
  allowedOrigins: string[];
  /** Drops the query from the address, so a token that came in it does not stay in this frame's history. */
  clearAddress?: boolean;
}) {
  useEffect(() => {
    if (clearAddress) window.history.replaceState(null, "", window.location.pathname);
    postToParent(allowedOrigins, { type: "partner-sales:error", code });
  }, [code, allowedOrigins, clearAddress]);

  return (
    <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900">
      {userMessageFor(code)}
    </p>
  );
}
