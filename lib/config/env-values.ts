/** The environment as read: every value a string, or absent. */
export type RawEnv = Readonly<Record<string, string | undefined>>;

/** A variable's value, trimmed; undefined when unset or blank. */
export function text(env: RawEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** localhost, 127.0.0.0/8 or ::1: traffic that never leaves the machine. */
function isLoopbackHost(hostname: string): boolean {
  return (
    LOOPBACK_HOSTS.has(hostname) || hostname.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}

/** https, or plain http that never leaves this machine: where secrets, codes and customers' data may go. */
export function isHttpsOrLoopback(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}
