import "server-only";
import { parseConfig, type Config } from "./config/parse";

let config: Config | undefined;

// Parsed on first use rather than at import so `next build` never needs production secrets.
export function getConfig(): Config {
  config ??= parseConfig(process.env);
  return config;
}
