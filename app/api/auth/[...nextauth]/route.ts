import { NextRequest } from "next/server";
import { handlers } from "@/auth";
import { errorResponse, framingPolicy } from "@/lib/http/json";
import { BODY_LIMITS, isJsonContentType, mediaTypeOf, readBoundedBody } from "@/lib/http/read-body";

const FORM = "application/x-www-form-urlencoded";

// A copy, because a redirect's headers may be immutable.
function withFramingPolicy(response: Response): Response {
  const framed = new Response(response.body, response);
  for (const [name, value] of Object.entries(framingPolicy())) framed.headers.set(name, value);
  return framed;
}

export async function GET(request: NextRequest) {
  return withFramingPolicy(await handlers.GET(request));
}

/**
 * Auth.js reads whatever body it is given. It gets a copy read within the limit instead, and only in the two
 * encodings its endpoints take (forms for sign-in and sign-out, JSON for a session update).
 */
export async function POST(request: NextRequest) {
  const contentType = request.headers.get("content-type");
  if (mediaTypeOf(contentType) !== FORM && !isJsonContentType(contentType)) {
    return errorResponse("unsupported_media_type");
  }
  const body = await readBoundedBody(request, BODY_LIMITS.auth);
  if (!body.ok) return errorResponse(body.code);
  const bounded = new NextRequest(request.url, {
    method: "POST",
    headers: request.headers,
    body: body.value,
  });
  return withFramingPolicy(await handlers.POST(bounded));
}
