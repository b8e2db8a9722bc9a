import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  generatePassword,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from "../lib/auth/password";
import type { Database } from "../lib/db/connection";
import { recordAuditEvent } from "../lib/db/queries/audit-events";
import {
  AgentExistsError,
  findAgentByEmail,
  insertAgent,
  listAgents,
  setAgentDisabled,
  setAgentPassword,
} from "../lib/db/queries/agents";
import { unlinkOidcIdentities } from "../lib/db/queries/oidc-identities";
import { endAgentSessions, listOpenSessions } from "../lib/db/queries/sessions";
import type { Agent } from "../lib/db/schema";
import { CommandError, runCli, UsageError, type CliContext } from "./cli";

const USAGE = `Manage agent accounts.

  npm run agents -- add --email E --name N [--role agent|supervisor] [--password P | --password-stdin | --no-password]
  npm run agents -- list
  npm run agents -- disable --email E
  npm run agents -- enable --email E
  npm run agents -- reset-password --email E [--password P | --password-stdin]
  npm run agents -- sessions --email E
  npm run agents -- end-sessions --email E
  npm run agents -- unlink-idp --email E

Without a password, add and reset-password generate one and print it once. --no-password (the default when
PASSWORD_SIGN_IN=off) adds an account that signs in only through the partner's IdP (OIDC) or portal.
unlink-idp forgets the agent's IdP identity, so the next sign-in through the IdP links it again by e-mail.
Works while the app runs: with the embedded database it goes through the app's socket in DATA_DIR.`;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function requireEmail(value: string | undefined): string {
  if (!value) throw new UsageError("--email is required.");
  if (!EMAIL.test(value.trim()) || value.length > 254)
    throw new UsageError(`"${value}" is not an e-mail address.`);
  return value;
}

function passwordFrom(values: { password?: string; "password-stdin"?: boolean }): {
  password: string;
  generated: boolean;
} {
  if (values.password !== undefined && values["password-stdin"]) {
    throw new UsageError("Give --password or --password-stdin, not both.");
  }
  const given = values["password-stdin"] ? readFileSync(0, "utf8").replace(/\r?\n$/, "") : values.password;
  if (given === undefined) return { password: generatePassword(), generated: true };
  if (given.length < PASSWORD_MIN_LENGTH || given.length > PASSWORD_MAX_LENGTH) {
    throw new UsageError(
      `The password must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`,
    );
  }
  return { password: given, generated: false };
}

function describe(agent: Agent): string {
  const status = agent.disabledAt ? "disabled" : "active";
  return `${agent.email}  ${agent.name}  ${agent.role}  ${status}`;
}

async function agentByEmail(db: Database, email: string): Promise<Agent> {
  const agent = await findAgentByEmail(db, email);
  if (!agent) throw new UsageError(`No agent with the e-mail ${email}.`);
  return agent;
}

async function run(command: string, args: string[], { db, config, operator }: CliContext): Promise<string> {
  // Every change to an account goes on the audit trail: who ran it, on which account, what.
  const changed = async (agent: Agent, change: Record<string, unknown>) =>
    recordAuditEvent(await db(), {
      action: "agent.changed",
      actor: operator,
      details: { command, agent: agent.email, ...change },
    });

  const { values } = parseArgs({
    args,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      role: { type: "string" },
      password: { type: "string" },
      "password-stdin": { type: "boolean" },
      "no-password": { type: "boolean" },
    },
    strict: true,
  });

  switch (command) {
    case "add": {
      const email = requireEmail(values.email);
      const name = values.name?.trim();
      if (!name) throw new UsageError("--name is required.");
      const role = values.role ?? "agent";
      if (role !== "agent" && role !== "supervisor")
        throw new UsageError('--role is "agent" or "supervisor".');
      const given = values.password !== undefined || values["password-stdin"];
      if (values["no-password"] && given) throw new UsageError("Give a password or --no-password, not both.");
      if (values["no-password"] || (!config.passwordSignIn && !given)) {
        const agent = await insertAgent(await db(), { email, name, role, passwordHash: null });
        await changed(agent, { role, password: false });
        return `Added ${describe(agent)} (no password: signs in through the partner's IdP or portal)`;
      }
      const { password, generated } = passwordFrom(values);
      const agent = await insertAgent(await db(), {
        email,
        name,
        role,
        passwordHash: await hashPassword(password),
      });
      await changed(agent, { role, password: true });
      return `Added ${describe(agent)}${generated ? `\nPassword: ${password}` : ""}`;
    }
    case "list": {
      const agents = await listAgents(await db());
      return agents.length ? agents.map(describe).join("\n") : "No agents yet.";
    }
    case "disable":
    case "enable": {
      const email = requireEmail(values.email);
      const agent = await setAgentDisabled(await db(), email, command === "disable");
      if (!agent) throw new UsageError(`No agent with the e-mail ${email}.`);
      await changed(agent, {});
      return `${command === "disable" ? "Disabled (open sessions end on their next request)" : "Enabled"}: ${describe(agent)}`;
    }
    case "reset-password": {
      const email = requireEmail(values.email);
      const { password, generated } = passwordFrom(values);
      const agent = await setAgentPassword(await db(), email, await hashPassword(password));
      if (!agent) throw new UsageError(`No agent with the e-mail ${email}.`);
      await changed(agent, {});
      return `New password set for ${agent.email}; open sessions ended.${generated ? `\nPassword: ${password}` : ""}`;
    }
    case "sessions": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const open = await listOpenSessions(await db(), agent.id, new Date(), config.sessions);
      if (open.length === 0) return `${agent.email} has no open session.`;
      const lines = open.map(
        (session) =>
          `${session.id}  ${session.method}  since ${session.createdAt.toISOString()}  last seen ${session.lastSeenAt.toISOString()}  ${session.userAgent ?? "(no user agent)"}`,
      );
      return [`${agent.email}: ${open.length} open session${open.length === 1 ? "" : "s"}`, ...lines].join(
        "\n",
      );
    }
    case "end-sessions": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const ended = await endAgentSessions(await db(), agent.id, new Date());
      await changed(agent, { sessionsEnded: ended });
      return `Ended ${ended} session${ended === 1 ? "" : "s"} of ${agent.email}.`;
    }
    case "unlink-idp": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const unlinked = await unlinkOidcIdentities(await db(), agent.id);
      if (!unlinked) return `${agent.email} has no IdP identity.`;
      // Whoever held the old IdP account is out too, not only at their next sign-in.
      const ended = await endAgentSessions(await db(), agent.id, new Date());
      await changed(agent, { sessionsEnded: ended });
      return `Unlinked ${agent.email} from its IdP identity and ended ${ended} session${ended === 1 ? "" : "s"}; the next sign-in through the IdP links it by e-mail.`;
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}".` : "Missing command.");
  }
}

await runCli(USAGE, async (command, args, context) => {
  try {
    return await run(command, args, context);
  } catch (error) {
    if (error instanceof AgentExistsError) throw new CommandError(error.message);
    throw error;
  }
});
