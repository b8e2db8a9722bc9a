import { afterAll, beforeAll, beforeEach } from "vitest";
import type { SandboxOptions } from "./server";
import { control, startSandbox, type RunningSandbox } from "./test-support";

/** One sandbox per test file, its state reset before each test. */
export function sandboxPerFile(onStart: (sandbox: RunningSandbox) => void, options?: SandboxOptions): void {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox(options);
    onStart(sandbox);
  });
  afterAll(() => sandbox.close());
  beforeEach(() => control(sandbox.url, "POST", "reset"));
}
