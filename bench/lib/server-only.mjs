import { register } from "node:module";

// `node --import ./bench/lib/server-only.mjs`: the app's server-only modules load outside Next.js (Vitest aliases
// `server-only` the same way), while React and next/* keep their ordinary builds. --conditions=react-server would
// also give React's server build, without the client context next/navigation makes (lib/dal/session.ts imports it).
register("./server-only-resolve.mjs", import.meta.url);
