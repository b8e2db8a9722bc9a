import { otherMethods } from "@/lib/api/methods";
import { openApiDocument } from "@/lib/api/openapi";
import { apiSecurityHeaders } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/**
 * The OpenAPI document of /api/v1, public: no key, and readable from any origin (no credentials), so that a
 * partner's tools can load it. Revalidated on every use: the plan catalogue it shows may change with a restart.
 */
export function GET() {
  return Response.json(openApiDocument(), {
    headers: {
      ...apiSecurityHeaders(),
      "Cache-Control": "no-cache",
      "Access-Control-Allow-Origin": "*",
      "Cross-Origin-Resource-Policy": "cross-origin",
    },
  });
}

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
