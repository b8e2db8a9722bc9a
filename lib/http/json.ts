/** A JSON answer no cache may keep: every API answer here is about one person's session or sale. */
export function noStoreJson(status: number, body: unknown): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store" } });
}
