import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess, waitUntilUp } from "../../bench/lib/processes";
import type { IdentityProviderOptions } from "./identity-provider";

export interface IdentityProviderProcess {
  issuer: string;
  stop(): Promise<void>;
}

/**
 * The test IdP (e2e/support/identity-provider.ts) in a child process whose clock runs `clockOffsetSeconds` from
 * ours (negative: behind), as a partner's IdP on a badly synchronised server would. Up once its discovery answers.
 */
export async function startIdentityProviderProcess(
  appOrigins: string[],
  options: IdentityProviderOptions & { port: number },
  clockOffsetSeconds = 0,
): Promise<IdentityProviderProcess> {
  const dir = mkdtempSync(join(tmpdir(), "partner-sales-idp-"));
  const child = startProcess(
    `IdP on ${options.port}`,
    process.execPath,
    ["--import", "tsx", "e2e/support/identity-provider-main.ts"],
    {
      cwd: process.cwd(),
      logFile: join(dir, "idp.log"),
      env: {
        ...process.env,
        IDP_SETUP: JSON.stringify({ appOrigins, options }),
        IDP_CLOCK_OFFSET_SECONDS: String(clockOffsetSeconds),
      },
    },
  );
  const stopOnExit = () => child.child.kill("SIGKILL");
  process.once("exit", stopOnExit);
  const issuer = `http://127.0.0.1:${options.port}${options.issuerPath ?? ""}`;
  await waitUntilUp(`${issuer}/.well-known/openid-configuration`, child, 60_000);
  return {
    issuer,
    async stop() {
      process.off("exit", stopOnExit);
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
