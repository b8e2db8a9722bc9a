import { errorResponse } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/**
 * Every path under /api/v1 that names no endpoint: the API's own JSON 404 with its security headers (the proxy does
 * not see /api/v1), whatever the method, before any key is read.
 */
const notFound = () => errorResponse("api_not_found");

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
