"use client";

import { useEffect, useRef, type ReactNode } from "react";
import type { AppearanceWarning } from "@/lib/embed-appearance";
import type { EmbedErrorCode } from "@/lib/errors/embed-frame";
import { postToParent } from "./parent-channel";

const NO_WARNINGS: AppearanceWarning[] = [];

/**
 * What a page in the portal's frame tells the portal, the form and every problem alike: its real height whenever
 * it changes (so the iframe fits a one-line problem as well as the form), the problem that stops it, if any, and
 * the appearance settings it ignored.
 */
export function FrameReport({
  allowedOrigins,
  problem,
  warnings = NO_WARNINGS,
  className,
  children,
}: {
  allowedOrigins: readonly string[];
  problem?: EmbedErrorCode;
  warnings?: readonly AppearanceWarning[];
  className?: string;
  children: ReactNode;
}) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const observer = new ResizeObserver(() =>
      postToParent(allowedOrigins, {
        type: "partner-sales:resize",
        height: Math.ceil(element.getBoundingClientRect().height),
      }),
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [allowedOrigins]);

  useEffect(() => {
    for (const warning of warnings)
      postToParent(allowedOrigins, { type: "partner-sales:warning", ...warning });
  }, [allowedOrigins, warnings]);

  useEffect(() => {
    if (problem) postToParent(allowedOrigins, { type: "partner-sales:error", code: problem });
  }, [allowedOrigins, problem]);

  return (
    <div ref={container} className={className}>
      {children}
    </div>
  );
}
