import { docsPage } from "@/lib/api/docs-page";
import { otherMethods } from "@/lib/api/methods";
import { getConfig } from "@/lib/env";
import { isHttpsRequest } from "@/lib/http/forwarded";
import { createNonce, documentSecurityHeaders } from "@/lib/http/security-headers";

export const dynamic = "force-dynamic";

/** The API's documentation for people, public like the document it shows; under the pages' own policy. */
export function GET(request: Request) {
  const nonce = createNonce();
  return new Response(docsPage(nonce), {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      // The nonce is this response's alone.
      "Cache-Control": "no-store",
      ...documentSecurityHeaders({
        nonce,
        allowedOrigins: getConfig().embed.allowedOrigins,
        https: isHttpsRequest(request.headers),
      }),
    },
  });
}

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
