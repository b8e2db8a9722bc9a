import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { generatePassword, hashPassword } from "../lib/auth/password";
import { newPasswordProblem, PASSWORD_PROBLEM_EN, type PasswordOwner } from "../lib/auth/password-policy";
import type { Config } from "../lib/config/parse";
import type { Database } from "../lib/db/connection";
import {
  AgentExistsError,
  findAgentByEmail,
  insertAgent,
  listAgents,
  setAgentDisabled,
  setAgentPassword,
  setAgentRole,
  type AgentChange,
} from "../lib/db/queries/agents";
import { recordAuditEvent } from "../lib/db/queries/audit-events";
import { clearFailures } from "../lib/db/queries/sign-in-throttle";
import { accountKey } from "../lib/auth/sign-in";
import { resetSecondFactors } from "../lib/db/queries/second-factors";
import {
  findIdentity,
  inviteIdentity,
  linkIdentity,
  listIdentities,
  unlinkIdentities,
  accountsToReview,
  type IdentityKey,
} from "../lib/db/queries/identities";
import { endAgentSessions, listOpenSessions, type EndedSession } from "../lib/db/queries/sessions";
import type { Agent, AgentIdentity, AgentRole, IdentityKind } from "../lib/db/schema";
import { doorName, type Door } from "../lib/auth/doors";
import { endedSessionEvent, sessionTag } from "../lib/security-log/line";
import { cliSecurityEvent, CommandError, optionalReason, runCli, UsageError, type CliContext } from "./cli";

const USAGE = `Manage agent accounts and the doors they sign in by.

  npm run agents -- add --email E --name N [--role agent|supervisor] [--password P | --password-stdin | --no-password]
  npm run agents -- list
  npm run agents -- disable --email E
  npm run agents -- enable --email E
  npm run agents -- reset-password --email E [--password P | --password-stdin]
  npm run agents -- set-role --email E --role agent|supervisor
  npm run agents -- sessions --email E
  npm run agents -- end-sessions --email E
  npm run agents -- reset-second-factor --email E [--reason R]
  npm run agents -- link --email E --idp [--subject SUB]
  npm run agents -- link --email E --portal ISSUER --subject SUB
  npm run agents -- unlink --email E (--idp | --portal ISSUER)

Each door reaches only the accounts linked to it, never one whose e-mail it names. A password signs in to its own
account, with the role set here (add --role, set-role). The partner's IdP and each portal sign in through the
identities linked to an account: created by their first sign-in, or linked here. link --idp --subject links the
IdP's "sub" for the person; without --subject it invites the account: the next sign-in through the IdP with this
e-mail (verified by the IdP) takes it, within 7 days. link --portal links a portal's agent id (its tokens' "sub").
unlink forgets the identities of a door and ends the sessions opened through them. list shows each account's
doors, and the accounts that earlier versions linked to two sources by e-mail, for you to review.
Without a password, add and reset-password generate one and print it once. A password given is refused when it
is among the most common or breached ones, or holds the account's e-mail or name; given or generated, the agent
must change it at first sign-in. --no-password (the default when PASSWORD_SIGN_IN=off) adds an account that signs
in only through the partner's IdP or a portal, once linked.
reset-second-factor removes every second factor (authenticator app, security key) and recovery code of an agent
who lost them, and ends their sessions: make sure who is asking first, and say why in --reason (the ticket).
Works while the app runs: with the embedded database it goes through the app's socket in DATA_DIR.`;

const INVITATION_DAYS = 7;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function requireEmail(value: string | undefined): string {
  if (!value) throw new UsageError("--email is required.");
  if (!EMAIL.test(value.trim()) || value.length > 254)
    throw new UsageError(`"${value}" is not an e-mail address.`);
  return value;
}

function requireRole(value: string | undefined, fallback?: AgentRole): AgentRole {
  const role = value ?? fallback;
  if (role !== "agent" && role !== "supervisor") throw new UsageError('--role is "agent" or "supervisor".');
  return role;
}

/** The password typed (--password, --password-stdin), as its account's rules allow it, or a generated one. */
function passwordFrom(
  values: { password?: string; "password-stdin"?: boolean },
  owner: PasswordOwner,
): { password: string; generated: boolean } {
  if (values.password !== undefined && values["password-stdin"]) {
    throw new UsageError("Give --password or --password-stdin, not both.");
  }
  const given = values["password-stdin"] ? readFileSync(0, "utf8").replace(/\r?\n$/, "") : values.password;
  if (given === undefined) return { password: generatePassword(), generated: true };
  const problem = newPasswordProblem(given, owner);
  if (problem) throw new UsageError(`The password is refused: ${PASSWORD_PROBLEM_EN[problem]}`);
  return { password: given, generated: false };
}

/** What the operator gives or is given: a password set here is for one sign-in (ASVS V6.4.1). */
function passwordNote(password: string, generated: boolean): string {
  return `${generated ? `\nPassword: ${password}` : ""}\nThe agent must change this password at first sign-in.`;
}

function describe(agent: Agent): string {
  const status = agent.disabledAt ? "disabled" : "active";
  return `${agent.email}  ${agent.name}  ${agent.role}  ${status}`;
}

function describeIdentity(identity: AgentIdentity): string {
  return identity.subject === null
    ? `${doorLabel(identity)} (invited until ${identity.invitedUntil!.toISOString().slice(0, 10)})`
    : `${doorLabel(identity)} (sub ${identity.subject})`;
}

async function agentByEmail(db: Database, email: string): Promise<Agent> {
  const agent = await findAgentByEmail(db, email);
  if (!agent) throw new UsageError(`No agent with the e-mail ${email}.`);
  return agent;
}

/** A door as the command line names it: `--idp` (every IdP identity, whichever issuer) or `--portal ISSUER`. */
interface DoorOption {
  kind: IdentityKind;
  /** Undefined: every IdP identity; "": a portal identity linked before tokens named an issuer. */
  issuer?: string;
}

function doorOption(values: { idp?: boolean; portal?: string }): DoorOption {
  if (values.idp && values.portal !== undefined) throw new UsageError("Give --idp or --portal, not both.");
  if (values.idp) return { kind: "oidc" };
  if (values.portal !== undefined) return { kind: "portal", issuer: values.portal };
  throw new UsageError("Name the door: --idp, or --portal ISSUER.");
}

/** The door to link to, as configured (never a guess): the IdP's issuer, or one of the portals'. */
function configuredDoor(values: { idp?: boolean; portal?: string }, config: Config): Door & DoorOption {
  const door = doorOption(values);
  if (door.kind === "oidc") {
    if (!config.oidc) throw new UsageError("--idp needs the partner's IdP configured (OIDC_ISSUER).");
    return { kind: "oidc", issuer: config.oidc.issuer };
  }
  const issuers = config.embed.portals.map((portal) => portal.issuer);
  if (!issuers.includes(door.issuer!)) {
    throw new UsageError(
      `"${door.issuer}" is no portal's issuer here (${issuers.length ? `configured: ${issuers.join(", ")}` : "no portal is configured"}).`,
    );
  }
  return { kind: "portal", issuer: door.issuer! };
}

function doorLabel(door: DoorOption): string {
  if (door.issuer === undefined) return "the IdP";
  return door.issuer === ""
    ? "portal:(issuer not yet known)"
    : doorName({ kind: door.kind, issuer: door.issuer });
}

/** How to name the door again on the command line, in a hint. */
const doorFlag = (door: DoorOption) => (door.kind === "oidc" ? "--idp" : `--portal ${door.issuer}`);

/** Each ended session in the security log (standard error), as the app logs the ones it ends. */
function logEnded(ended: readonly EndedSession[]) {
  for (const session of ended) cliSecurityEvent(...endedSessionEvent(session));
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

async function run(command: string, args: string[], { db, config, operator }: CliContext): Promise<string> {
  // Every change to an account goes on the audit trail: who ran it, on which account, what.
  const changed = async (agent: Agent, change: Record<string, unknown>) =>
    recordAuditEvent(await db(), {
      ...operator,
      action: "agent.changed",
      details: { command, agentId: agent.id, agent: agent.email, ...change },
    });
  const loggedChange = async (
    { agent, endedSessions }: AgentChange,
    change: Record<string, unknown> = {},
  ) => {
    await changed(agent, { ...change, sessionsEnded: endedSessions.length });
    logEnded(endedSessions);
  };

  const { values } = parseArgs({
    args,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      role: { type: "string" },
      password: { type: "string" },
      "password-stdin": { type: "boolean" },
      "no-password": { type: "boolean" },
      idp: { type: "boolean" },
      portal: { type: "string" },
      subject: { type: "string" },
      reason: { type: "string" },
    },
    strict: true,
  });

  switch (command) {
    case "add": {
      const email = requireEmail(values.email);
      const name = values.name?.trim();
      if (!name) throw new UsageError("--name is required.");
      const role = requireRole(values.role, "agent");
      const given = values.password !== undefined || values["password-stdin"];
      if (values["no-password"] && given) throw new UsageError("Give a password or --no-password, not both.");
      const withPassword = !(values["no-password"] || (!config.passwordSignIn && !given));
      const { password, generated } = withPassword
        ? passwordFrom(values, { email, name })
        : { password: "", generated: false };
      const agent = await insertAgent(await db(), {
        email,
        name,
        role,
        passwordHash: withPassword ? await hashPassword(password) : null,
        passwordChangeRequired: withPassword,
      });
      await recordAuditEvent(await db(), {
        ...operator,
        action: "agent.created",
        details: {
          agentId: agent.id,
          email: agent.email,
          role,
          password: withPassword,
          passwordChangeRequired: withPassword,
        },
      });
      cliSecurityEvent("account.created", {
        outcome: "success",
        door: operator.door,
        agentId: agent.id,
        details: { role, password: withPassword },
      });
      if (!withPassword) {
        return `Added ${describe(agent)} (no password: link its IdP or portal identity with npm run agents -- link)`;
      }
      return `Added ${describe(agent)}${passwordNote(password, generated)}`;
    }
    case "list": {
      const [agents, identities, toReview] = await Promise.all([
        listAgents(await db()),
        listIdentities(await db()),
        accountsToReview(await db()),
      ]);
      if (agents.length === 0) return "No agents yet.";
      const doors = (agent: Agent) => [
        ...(agent.passwordHash ? ["password"] : []),
        ...identities.filter((identity) => identity.agentId === agent.id).map(describeIdentity),
      ];
      const lines = agents.map((agent) => `${describe(agent)}  ${doors(agent).join(", ") || "(no door)"}`);
      if (toReview.length > 0) {
        lines.push(
          "",
          `To review: ${plural(toReview.length, "account")} with a door that earlier versions may have linked by ` +
            "e-mail. It may be someone else's: unlink it (unlink --email E --idp | --portal ISSUER), or confirm it " +
            "with link.",
          ...toReview.map((agent) => `  ${agent.email}  ${agent.doors.join(", ")}`),
        );
      }
      return lines.join("\n");
    }
    case "disable":
    case "enable": {
      const email = requireEmail(values.email);
      const result = await setAgentDisabled(await db(), email, command === "disable");
      if (!result) throw new UsageError(`No agent with the e-mail ${email}.`);
      await loggedChange(result);
      return `${command === "disable" ? "Disabled (open sessions end on their next request)" : "Enabled"}: ${describe(result.agent)}`;
    }
    case "reset-password": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const { password, generated } = passwordFrom(values, agent);
      const result = await setAgentPassword(
        await db(),
        agent.email,
        await hashPassword(password),
        new Date(),
        {
          changeRequired: true,
        },
      );
      if (!result) throw new UsageError(`No agent with the e-mail ${agent.email}.`);
      await loggedChange(result, { passwordChangeRequired: true });
      return `New password set for ${result.agent.email}; open sessions ended.${passwordNote(password, generated)}`;
    }
    case "set-role": {
      const email = requireEmail(values.email);
      if (values.role === undefined) throw new UsageError("--role is required.");
      const role = requireRole(values.role);
      const result = await setAgentRole(await db(), { email, role, actor: operator });
      if (!result) throw new UsageError(`No agent with the e-mail ${email}.`);
      if (result.previousRole === role) return `${result.agent.email} already has the role ${role}.`;
      cliSecurityEvent("account.role_changed", {
        outcome: "success",
        door: operator.door,
        agentId: result.agent.id,
        details: { sessionDoor: "password", from: result.previousRole, to: role },
      });
      logEnded(result.endedSessions);
      return `${result.agent.email} signs in with a password as ${role} now; ${plural(result.endedSessions.length, "password session")} ended.`;
    }
    case "sessions": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const open = await listOpenSessions(await db(), agent.id, new Date(), config.sessions);
      if (open.length === 0) return `${agent.email} has no open session.`;
      const lines = open.map(
        (session) =>
          `${sessionTag(session.id)}  ${session.door}  ${session.role}  since ${session.createdAt.toISOString()}  last seen ${session.lastSeenAt.toISOString()}  ${session.userAgent ?? "(no user agent)"}`,
      );
      return [`${agent.email}: ${plural(open.length, "open session")}`, ...lines].join("\n");
    }
    case "end-sessions": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const ended = await endAgentSessions(await db(), agent.id, new Date(), "ended_by_operator");
      await loggedChange({ agent, endedSessions: ended });
      return `Ended ${plural(ended.length, "session")} of ${agent.email}.`;
    }
    case "reset-second-factor": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const reason = optionalReason(values.reason);
      const reset = await resetSecondFactors(await db(), agent.id, new Date());
      // Locked out by the codes of the factor they lost: the reset lets them sign in now.
      await clearFailures(await db(), accountKey(agent.email));
      await recordAuditEvent(await db(), {
        ...operator,
        action: "agent.second_factor_reset",
        reason,
        details: {
          agentId: agent.id,
          email: agent.email,
          factors: reset.factors,
          recoveryCodes: reset.recoveryCodes,
          sessionsEnded: reset.endedSessions.length,
        },
      });
      cliSecurityEvent("account.second_factor_reset", {
        outcome: "success",
        door: operator.door,
        agentId: agent.id,
        details: { factors: reset.factors, recoveryCodes: reset.recoveryCodes },
      });
      logEnded(reset.endedSessions);
      return (
        `Second factors reset for ${agent.email}: ${plural(reset.factors, "factor")} and ` +
        `${plural(reset.recoveryCodes, "recovery code")} removed, ${plural(reset.endedSessions.length, "session")} ` +
        "ended. The next password sign-in enrols a new factor where the policy asks for one."
      );
    }
    case "link":
      return link(await db(), values, config, operator);
    case "unlink":
    case "unlink-idp": {
      const agent = await agentByEmail(await db(), requireEmail(values.email));
      const door = doorOption(command === "unlink-idp" ? { idp: true } : values);
      const { unlinked, endedSessions } = await unlinkIdentities(await db(), {
        agentId: agent.id,
        ...door,
        now: new Date(),
        actor: operator,
      });
      if (unlinked.length === 0) return `${agent.email} has no identity at ${doorLabel(door)}.`;
      for (const identity of unlinked) {
        cliSecurityEvent("account.identity_unlinked", {
          outcome: "success",
          door: operator.door,
          agentId: agent.id,
          details: { identity: doorLabel(identity) },
        });
      }
      logEnded(endedSessions);
      return `Unlinked ${agent.email} from ${doorLabel(door)} and ended ${plural(endedSessions.length, "session")} opened through it.`;
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}".` : "Missing command.");
  }
}

async function link(
  db: Database,
  values: { email?: string; idp?: boolean; portal?: string; subject?: string },
  config: Config,
  operator: CliContext["operator"],
): Promise<string> {
  const agent = await agentByEmail(db, requireEmail(values.email));
  const door = configuredDoor(values, config);
  const subject = values.subject?.trim();
  if (
    values.subject !== undefined &&
    (!subject || subject.length > 255 || /[\u0000-\u001f\u007f]/.test(subject))
  )
    throw new UsageError(
      "--subject is the person's id at that door: 1 to 255 characters, no control characters.",
    );
  const logLinked = (identity: AgentIdentity) =>
    cliSecurityEvent("account.identity_linked", {
      outcome: "success",
      door: operator.door,
      agentId: agent.id,
      reason: identity.subject === null ? "invitation" : "operator",
      details: { identity: doorName(identity) },
    });

  if (!subject) {
    if (door.kind === "portal")
      throw new UsageError("--portal needs --subject: the agent's id at the portal.");
    const until = new Date(Date.now() + INVITATION_DAYS * 24 * 60 * 60_000);
    const invited = await inviteIdentity(db, {
      agentId: agent.id,
      issuer: door.issuer,
      until,
      actor: operator,
    });
    if (!invited) {
      throw new CommandError(
        `${agent.email} is linked to ${doorName(door)} already: unlink it first to invite again.`,
      );
    }
    logLinked(invited);
    return `Invited ${agent.email}: the next sign-in through ${doorName(door)} with this e-mail, verified by the IdP, takes the account (until ${until.toISOString().slice(0, 10)}).`;
  }

  const key: IdentityKey = { ...door, subject };
  const holder = await findIdentity(db, key);
  if (holder && holder.agent.id !== agent.id) {
    throw new CommandError(
      `${doorName(door)} "${subject}" is linked to ${holder.agent.email}: unlink it there first (npm run agents -- unlink --email ${holder.agent.email} ${doorFlag(door)}).`,
    );
  }
  const result = await linkIdentity(db, { agentId: agent.id, key, actor: operator });
  if (!result) {
    throw new CommandError(
      `${agent.email} has another identity at ${doorName(door)}: unlink it first (npm run agents -- unlink --email ${agent.email} ${doorFlag(door)}).`,
    );
  }
  if (!result.linked) return `${agent.email} and ${doorName(door)} "${subject}" are linked (confirmed).`;
  logLinked(result.identity);
  return `Linked ${agent.email} to ${doorName(door)} "${subject}": sign-ins through it reach this account.`;
}

await runCli(USAGE, async (command, args, context) => {
  try {
    return await run(command, args, context);
  } catch (error) {
    if (error instanceof AgentExistsError) throw new CommandError(error.message);
    throw error;
  }
});
