import type { ComponentProps, ReactNode } from "react";

export type NoticeTone = "error" | "warning" | "success" | "info";

const TONES: Record<NoticeTone, string> = {
  error: "border-red-300 bg-red-50 text-red-900",
  warning: "border-amber-300 bg-amber-50 text-amber-950",
  success: "border-emerald-300 bg-emerald-50 text-emerald-900",
  info: "border-slate-200 bg-slate-50 text-slate-700",
};

/**
 * A message box: what went wrong (`error`, `warning`: announced at once, role alert) or what happened (`success`,
 * `info`: role status). `compact` is the size that sits inside a card (sign-in).
 */
export function Notice({
  tone,
  compact = false,
  as: Tag = "p",
  className,
  children,
  ...props
}: {
  tone: NoticeTone;
  compact?: boolean;
  as?: "p" | "div";
  children: ReactNode;
} & Omit<ComponentProps<"p">, "children">) {
  const style = `rounded-md border ${compact ? "px-3 py-2" : "px-4 py-3"} ${TONES[tone]}`;
  return (
    <Tag
      role={tone === "error" || tone === "warning" ? "alert" : "status"}
      {...props}
      className={className ? `${style} ${className}` : style}
    >
      {children}
    </Tag>
  );
}
