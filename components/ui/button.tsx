import type { ComponentProps } from "react";

export type ButtonVariant = "primary" | "secondary" | "brand-outline";
export type ButtonSize = "sm" | "md" | "lg";

export interface ButtonStyle {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** The whole width of its container. */
  block?: boolean;
}

/**
 * The app's one button look, for a `<button>` or anything drawn as one (a link: "Voltar"); the classes are in
 * app/globals.css. The focus ring shows for the keyboard only; a disabled button fades.
 */
export function buttonClass({ variant = "primary", size = "md", block = false }: ButtonStyle = {}): string {
  return `btn btn-${variant}${size === "md" ? "" : ` btn-${size}`}${block ? " block w-full" : ""}`;
}

/** A `<button>` (type="button" unless told otherwise) in the app's look. */
export function Button({
  variant,
  size,
  block,
  className,
  type = "button",
  ...props
}: ComponentProps<"button"> & ButtonStyle) {
  const style = buttonClass({ variant, size, block });
  return <button type={type} {...props} className={className ? `${style} ${className}` : style} />;
}
