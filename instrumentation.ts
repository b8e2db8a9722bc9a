import type { Instrumentation } from "next";

export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // First, so that whatever Next.js or a library prints from here on is a JSON line too.
  const { captureConsole } = await import("./lib/console-capture");
  captureConsole();
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    const { startTracing } = await import("./lib/tracing-setup");
    startTracing();
  }
  const { startServer } = await import("./lib/server-start");
  await startServer();
}

/** The request an error happened in, for operators: route and method, never the query string or a body. */
export const onRequestError: Instrumentation.onRequestError = async (error, request, context) => {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { log } = await import("./lib/log");
  log.error("request.error", {
    method: request.method,
    path: request.path.split("?")[0],
    routerKind: context.routerKind,
    routePath: context.routePath,
    routeType: context.routeType,
    error,
  });
};
