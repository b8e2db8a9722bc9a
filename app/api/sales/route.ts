import { verifySession } from "@/lib/dal/session";

export const dynamic = "force-dynamic";

export async function POST() {
  const agent = await verifySession();
  if (!agent) {
    return Response.json(
      { error: "unauthorized", message: "Sign in first: this endpoint needs a session." },
      { status: 401, headers: { "Cache-Control": "no-store" } },
    );
  }
  return Response.json({ error: "not_implemented" }, { status: 501 });
}
