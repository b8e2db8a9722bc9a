import type { ComponentProps, ReactNode } from "react";

export type NoticeTone = "error" | "warning" | "success" | "info" | "progress";

/** A message box's look, for a box that sets its own role (a sale's outcome) or none (a page's standing note). */
export function noticeClass(tone: NoticeTone, compact = false): string {
  return `notice notice-${tone}${compact ? " notice-compact" : ""}`;
}

/**
 * A message box: what went wrong (`error`, `warning`: announced at once, role alert) or what happened (`success`,
 * `info`, `progress` while waiting: role status). `compact` is the size that sits inside a card (sign-in). The looks are in app/globals.css.
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
  const style = noticeClass(tone, compact);
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
