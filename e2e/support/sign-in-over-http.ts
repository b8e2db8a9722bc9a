import { request as httpRequest } from "node:http";
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { DEMO_AGENT } from "./environment";

interface Answer {
  status: number;
  location: string | undefined;
  setCookies: string[];
  body: string;
}

/** One HTTP exchange from a chosen loopback source address (127.0.0.0/8 is all this machine's). */
function exchange(
  url: string,
  options: { method: "GET" | "POST"; headers: Record<string, string>; body?: string; localAddress: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method, headers: options.headers, localAddress: options.localAddress },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            location: response.headers.location,
            setCookies: response.headers["set-cookie"] ?? [],
            body,
          }),
        );
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

/**
 * A request context of its own for the app at `baseURL`, signed in through Auth.js's endpoints as `account` (the demo
 * agent unless told).
 */
export async function signedInRequest(
  baseURL: string,
  account: { email: string; password: string } = DEMO_AGENT,
  { keepAlive = true }: { keepAlive?: boolean } = {},
): Promise<APIRequestContext> {
  // keepAlive false: a connection per request, for a test that leaves a context idle for seconds (the server's
  // 5 s keep-alive may close the kept connection just as the next request goes out on it: ECONNRESET).
  const context = await playwrightRequest.newContext({
    baseURL,
    ...(keepAlive ? {} : { extraHTTPHeaders: { connection: "close" } }),
  });
  const { csrfToken } = (await (await context.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const answer = await context.post("/api/auth/callback/credentials", {
    form: { email: account.email, password: account.password, csrfToken },
    maxRedirects: 0,
  });
  const location = answer.headers().location ?? "";
  if (location.includes("error=")) throw new Error(`${account.email}'s sign-in was refused: ${location}`);
  return context;
}

export type SignInOutcome = "signed-in" | "invalid" | "locked";

/**
 * A password sign-in straight through Auth.js's endpoints, as a script would send it: from `localAddress` (the
 * socket's peer the app sees) with whatever extra headers (a forged or a proxy's X-Forwarded-For).
 */
export async function signInOverHttp(
  baseUrl: string,
  credentials: { email: string; password: string },
  { localAddress, headers = {} }: { localAddress: string; headers?: Record<string, string> },
): Promise<SignInOutcome> {
  const csrf = await exchange(`${baseUrl}/api/auth/csrf`, { method: "GET", headers, localAddress });
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const cookie = csrf.setCookies.map((setCookie) => setCookie.split(";")[0]).join("; ");
  const answer = await exchange(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...credentials, csrfToken }).toString(),
    localAddress,
  });
  const location = answer.location ?? "";
  if (!location.includes("error=")) return "signed-in";
  return new URL(location, baseUrl).searchParams.get("code")?.startsWith("locked") ? "locked" : "invalid";
}
