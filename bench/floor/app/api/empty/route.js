// The cheapest POST a Next.js route handler can answer: the floor every handler of ours stands on.
export const dynamic = "force-dynamic";

export function POST() {
  return Response.json({ ok: true });
}
