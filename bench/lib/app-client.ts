/** The `name=value` pairs a response sets, over those of `jar`. */
function withCookies(jar: Map<string, string>, response: Response): Map<string, string> {
  for (const setCookie of response.headers.getSetCookie()) {
    const pair = setCookie.split(";")[0]!;
    const at = pair.indexOf("=");
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return jar;
}

const cookieHeader = (jar: Map<string, string>) =>
  [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

/** A password sign-in through Auth.js's endpoints, as the sign-in form posts it: the session's Cookie header. */
export async function signIn(origin: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${origin}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = withCookies(new Map(), csrf);
  const answer = await fetch(`${origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookieHeader(jar), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password, csrfToken }),
  });
  await answer.arrayBuffer();
  const location = answer.headers.get("location") ?? "";
  if (answer.status !== 302 || location.includes("error=")) {
    throw new Error(`Signing in as ${email} failed (${answer.status} ${location}).`);
  }
  return cookieHeader(withCookies(jar, answer));
}

/** A page as a signed-in browser asks for it, read to its last byte: its size and rows (lines). */
export async function readPage(origin: string, path: string, cookie: string) {
  const response = await fetch(`${origin}${path}`, { headers: { cookie }, redirect: "manual" });
  if (response.status !== 200) {
    await response.arrayBuffer();
    throw new Error(`GET ${path} answered ${response.status}${response.headers.get("location") ?? ""}.`);
  }
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
  }
  return { bytes, lines };
}

/** A counter's value in the app's /api/metrics (its sum over the label sets that contain `labels`). */
export async function metricValue(origin: string, token: string, name: string, labels = ""): Promise<number> {
  const response = await fetch(`${origin}/api/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`GET ${origin}/api/metrics answered ${response.status}.`);
  let total = 0;
  for (const line of (await response.text()).split("\n")) {
    const rest = line.slice(name.length);
    if (!line.startsWith(name) || (rest[0] !== " " && rest[0] !== "{") || !line.includes(labels)) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

/** The database round trips and the accepted sales an app has counted so far (bench/run.ts, bench/profile.ts). */
export async function databaseCounts(origin: string, token: string) {
  const [roundTrips, sales] = await Promise.all([
    metricValue(origin, token, "partner_sales_db_round_trips_total"),
    metricValue(origin, token, "partner_sales_sales_total", 'outcome="accepted"'),
  ]);
  return { roundTrips, sales };
}
