/** The QR code the server drew (lib/auth/second-factor/totp.ts `qrPath`), as an image of the page itself. */
export function QrCode({ size, path, label }: { size: number; path: string; label: string }) {
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${size} ${size}`}
      shapeRendering="crispEdges"
      className="size-44 rounded-md border border-slate-200 bg-white"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
