import type { NextRequest } from "next/server";
import { appearanceStylesheet, parseAppearance } from "@/lib/embed-appearance";

/**
 * The portal's appearance for /embed, as a stylesheet of the app's own origin (what the page's CSP allows on a
 * client-side navigation too). Only settings that pass lib/embed-appearance.ts's strict formats are written; the
 * answer depends on the address alone, so any cache may keep it.
 */
export function GET(request: NextRequest) {
  const { appearance } = parseAppearance(Object.fromEntries(request.nextUrl.searchParams));
  return new Response(appearanceStylesheet(appearance), {
    headers: {
      "Content-Type": "text/css; charset=utf-8",
      "Cache-Control": "public, max-age=86400",
    },
  });
}
