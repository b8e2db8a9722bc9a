import { Agent, request as httpRequest } from "node:http";

export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadTarget {
  name: string;
  /** http://host:port */
  origin: string;
  /** Called before the clock starts, so building the request is not measured. */
  makeRequest: () => LoadRequest;
  /** The status a correct answer has; anything else counts as an error (and fails the run). */
  expectStatus: number;
  /** The app: its database round trips per sale are read from its metrics around each round. */
  countsDatabase?: boolean;
}

export interface LoadResult {
  latenciesMs: number[];
  durationMs: number;
  errors: { status: number | string; count: number }[];
}

function send(agent: Agent, origin: URL, load: LoadRequest): Promise<number> {
  const body = Buffer.from(load.body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        agent,
        host: origin.hostname,
        port: origin.port,
        method: "POST",
        path: load.path,
        headers: { ...load.headers, "content-length": String(body.length) },
      },
      (response) => {
        response.on("data", () => {});
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/**
 * A closed-loop load: `concurrency` clients, each sending its next request when the last answer has fully
 * arrived, over kept-alive connections, until `requests` have been sent. Latency comes from `hrtime`, so it has
 * sub-microsecond resolution; `warmUp` requests go first on the same connections and are not counted.
 */
export async function runLoad(
  target: LoadTarget,
  { concurrency, requests, warmUp = concurrency }: { concurrency: number; requests: number; warmUp?: number },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const origin = new URL(target.origin);
  const errors = new Map<number | string, number>();
  const latenciesMs: number[] = [];
  let sent = 0;
  let limit = warmUp;
  let recording = false;

  const client = async () => {
    while (sent < limit) {
      sent++;
      const load = target.makeRequest();
      const startedAt = process.hrtime.bigint();
      let status: number | string;
      try {
        status = await send(agent, origin, load);
      } catch (error) {
        status = (error as NodeJS.ErrnoException).code ?? "error";
      }
      const elapsedMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
      if (status !== target.expectStatus) errors.set(status, (errors.get(status) ?? 0) + 1);
      if (recording) latenciesMs.push(elapsedMs);
    }
  };

  try {
    await Promise.all(Array.from({ length: concurrency }, client));
    sent = 0;
    limit = requests;
    recording = true;
    const startedAt = process.hrtime.bigint();
    await Promise.all(Array.from({ length: concurrency }, client));
    const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
    return {
      latenciesMs,
      durationMs,
      errors: [...errors].map(([status, count]) => ({ status, count })),
    };
  } finally {
    agent.destroy();
  }
}
