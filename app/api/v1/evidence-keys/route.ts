import { otherMethods } from "@/lib/api/methods";
import { evidencePublicKeys } from "@/lib/dal/sale-evidence";
import { apiSecurityHeaders } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/** The keys dispute packs are signed with (JWKS, RFC 7517): public, so that whoever resolves a dispute can check one. */
export async function GET() {
  return Response.json(await evidencePublicKeys(), {
    headers: { "Cache-Control": "public, max-age=300", ...apiSecurityHeaders() },
  });
}

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
