import { errorResponse } from "@/lib/http/json";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/**
 * The handlers an /api/v1 route does not have, answering the API's JSON 405 with `Allow` (RFC 9110 §15.5.6) where
 * Next.js would answer an empty one: `export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST")`.
 */
export function otherMethods(...allowed: Method[]): Record<Method, () => Response> {
  const refuse = () => {
    const response = errorResponse("method_not_allowed");
    response.headers.set("Allow", allowed.join(", "));
    return response;
  };
  return Object.fromEntries(METHODS.map((method) => [method, refuse])) as Record<Method, () => Response>;
}
