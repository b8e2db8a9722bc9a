import type { ComponentProps } from "react";

export type ButtonVariant = "primary" | "secondary" | "brand-outline";
export type ButtonSize = "sm" | "md" | "lg";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-brand-700 text-white hover:bg-brand-800",
  secondary: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
  "brand-outline": "border border-brand-700 bg-white text-brand-800 hover:bg-brand-50",
};

const SIZES: Record<ButtonSize, string> = {
  sm: "px-4 py-2 text-sm",
  md: "px-4 py-2",
  lg: "px-5 py-2.5",
};

export interface ButtonStyle {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** The whole width of its container. */
  block?: boolean;
}

/**
 * The app's one button look, for a `<button>` or anything drawn as one (a link: "Voltar"). The focus ring shows
 * for the keyboard only; a disabled button fades.
 */
export function buttonClass({ variant = "primary", size = "md", block = false }: ButtonStyle = {}): string {
  return [
    "rounded-md text-center font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-600 focus-visible:ring-offset-2 disabled:opacity-70",
    VARIANTS[variant],
    SIZES[size],
    block ? "block w-full" : "",
  ]
    .filter(Boolean)
    .join(" ");
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
