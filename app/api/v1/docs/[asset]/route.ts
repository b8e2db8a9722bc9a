import { DOCS_ASSETS, docsAsset, isDocsAsset } from "@/lib/api/docs-page";
import { otherMethods } from "@/lib/api/methods";
import { apiSecurityHeaders, errorResponse } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/** The documentation page's script and stylesheet; any other name is the API's 404. */
export async function GET(_request: Request, context: RouteContext<"/api/v1/docs/[asset]">) {
  const { asset } = await context.params;
  if (!isDocsAsset(asset)) return errorResponse("api_not_found");
  return new Response(new Uint8Array(docsAsset(asset)), {
    headers: {
      ...apiSecurityHeaders(),
      "Content-Type": DOCS_ASSETS[asset].type,
      "Cache-Control": "public, max-age=300",
    },
  });
}

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
