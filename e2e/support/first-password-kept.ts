// Test set-up only (run by e2e/support/agents-cli.ts): an account the CLI gave a password to, as if its person had
// already been through the first sign-in's change, so specs about other things sign in with one step. The change
// itself is e2e/second-factor.spec.ts's.
import { eq } from "drizzle-orm";
import { normalizeEmail } from "../../lib/db/queries/agents";
import { agents } from "../../lib/db/schema";
import { CommandError, runCli } from "../../scripts/cli";

await runCli("first-password-kept <e-mail>", async (email, _args, { db }) => {
  const kept = await (
    await db()
  )
    .update(agents)
    .set({ passwordChangeRequired: false })
    .where(eq(agents.email, normalizeEmail(email)))
    .returning({ id: agents.id });
  if (kept.length !== 1) throw new CommandError(`No agent ${email}.`);
  return `First password kept for ${email}.`;
});
