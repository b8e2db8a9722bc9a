import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { PartnerSaleField, PartnerSaleRequestBody } from "@/lib/provider/types";

export const agentRole = pgEnum("agent_role", ["agent", "supervisor"]);

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

export const agents = pgTable(
  "agents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Stored lower-case: e-mails are case-insensitive and unique. It names the account; it links nothing. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    /** The role of password sessions, which only the operator's CLI sets (each door decides its own). */
    role: agentRole("role").notNull().default("agent"),
    /** argon2id PHC string; null for agents who sign in only through the partner's IdP or a portal. */
    passwordHash: text("password_hash"),
    /**
     * The password was set by someone else (the operator, the CLI's generator): the next password sign-in must change
     * it before anything else (ASVS V6.4.1: an initial password is for one use).
     */
    passwordChangeRequired: boolean("password_change_required").notNull().default(false),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("agents_email_key").on(table.email),
    check("agents_email_lower_case", sql`${table.email} = lower(${table.email})`),
  ],
);

/** The doors other than the password: the partner's OpenID Connect provider, and a partner portal's signed token. */
export const identityKind = pgEnum("identity_kind", ["oidc", "portal"]);

/** How an identity came to be linked to its agent (the CLI lists it; the start-up report reads `migration`). */
export const identityLink = pgEnum("identity_link", [
  /** Recorded by migration 0013 from how earlier versions linked it (possibly by e-mail): for the operator to review. */
  "migration",
  /** The identity's first sign-in created its agent. */
  "sign_in",
  /** An operator's invitation (`agents link --idp` without `--subject`), taken by the IdP's sign-in. */
  "invitation",
  /** OIDC_ADOPT_PASSWORD_ACCOUNTS: the partner's IdP took over a password account. */
  "adoption",
  /** A portal's first token named the issuer of an identity linked before tokens named one. */
  "legacy_adoption",
  /** `npm run agents -- link`. */
  "operator",
]);

/**
 * Who an agent is at a door other than the password: the IdP's (`iss`, `sub`) or a portal's (its issuer, the `sub`
 * of its tokens). A sign-in through an identity reaches the one agent it is linked to; nothing is ever linked because
 * an e-mail matches (lib/auth/identities.ts says when something is linked at all). One identity per door per agent.
 */
export const agentIdentities = pgTable(
  "agent_identities",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    kind: identityKind("kind").notNull(),
    /** The IdP's or the portal's issuer; '' for a portal identity linked before tokens named their issuer. */
    issuer: text("issuer").notNull(),
    /**
     * The person's id there. Null: an operator's invitation (`agents link --idp` without `--subject`), which the first
     * sign-in through that IdP with the account's verified e-mail takes, before `invitedUntil`.
     */
    subject: text("subject"),
    invitedUntil: timestamp("invited_until", { withTimezone: true }),
    /** The role this door gave at its last sign-in (the IdP's claim; a portal's allowance). */
    role: agentRole("role"),
    linkedBy: identityLink("linked_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("agent_identities_subject_key").on(table.kind, table.issuer, table.subject),
    uniqueIndex("agent_identities_agent_door_key").on(table.agentId, table.kind, table.issuer),
    check(
      "agent_identities_invitation",
      sql`(${table.subject} is null) = (${table.invitedUntil} is not null)`,
    ),
  ],
);

export type AgentIdentity = typeof agentIdentities.$inferSelect;
export type IdentityKind = (typeof identityKind.enumValues)[number];
export type IdentityLink = (typeof identityLink.enumValues)[number];

/** Failed sign-ins per key ("account:<email>" or "address:<ip>"), kept in the database so limits survive restarts. */
export const signInThrottle = pgTable("sign_in_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull().defaultNow(),
  lockedUntil: timestamp("locked_until", { withTimezone: true }),
  lockouts: integer("lockouts").notNull().default(0),
});

/**
 * How much of a request budget (lib/dal/limits.ts) each key (`<limit>:<agent id>`) has spent in its current fixed
 * window: one row per key, shared by every instance. Unlogged (migration 0024): a crash or a failover to a replica
 * starts every budget from zero.
 */
export const requestBudgets = pgTable("request_budgets", {
  key: text("key").primaryKey(),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull(),
  used: integer("used").notNull(),
});

/**
 * A partner's system that uses the REST API with keys (its CRM, dialer, portal backend): the door `api-key:<name>`,
 * and the seller of the sales its keys make.
 */
export const integrations = pgTable(
  "integrations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** What the operator called it (`npm run api-keys -- create --name`): lower case, letters, digits, `-`, `_`. */
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex("integrations_name_key").on(table.name)],
);
export type Integration = typeof integrations.$inferSelect;

/**
 * An integration's API keys (lib/auth/api-keys.ts). The key is shown once, when made; only its SHA-256 is kept (a
 * key holds 256 random bits: nothing to guess, so no slow hash). Several may be live at once: rotation.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    integrationId: uuid("integration_id")
      .notNull()
      .references(() => integrations.id),
    /** The key's first characters (`psk_` and 8 more): how lists, logs and the trail name it; never enough to use it. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key, hex. */
    secretHash: text("secret_hash").notNull(),
    scopes: text("scopes").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Written at most once a minute, as sessions' last seen. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("api_keys_prefix_key").on(table.prefix),
    index("api_keys_integration_idx").on(table.integrationId),
  ],
);
export type ApiKey = typeof apiKeys.$inferSelect;

export const sessionMethod = pgEnum("session_method", ["password", "portal", "oidc"]);

/** Why a session ended, for the security log and the CLI. */
export const sessionEndReason = pgEnum("session_end_reason", [
  "signed_out",
  /** "Sair de todos os dispositivos" in another of the agent's sessions. */
  "signed_out_elsewhere",
  /** The same browser signed in again. */
  "replaced",
  "disabled",
  "password_changed",
  /** `npm run agents -- end-sessions`. */
  "ended_by_operator",
  "identity_unlinked",
  "role_changed",
  "idle",
  "absolute",
  /** Its door was closed by configuration since (the portal or IdP removed, passwords or supervisors turned off). */
  "door_closed",
  /** `npm run agents -- reset-second-factor`: whoever held the factors is out. */
  "second_factor_reset",
  /** Open when migration 0013 gave sessions their door and role: everyone signs in once more. */
  "upgrade",
]);

/**
 * One row per sign-in. The session cookie carries the row's id, so ending the row ends the session on every
 * instance at once (sign-out, "sign out everywhere", disable, password reset); the idle and absolute limits are
 * checked against `lastSeenAt` and `createdAt` on every request. Times come from the app's clock. The row keeps the
 * door the agent came through and the role that door gave: a session is never more than its door allows.
 */
export const sessions = pgTable(
  "sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    method: sessionMethod("method").notNull(),
    /** `password`, `oidc:<issuer>` or `portal:<issuer>` (lib/auth/doors.ts). */
    door: text("door").notNull(),
    /** The identity signed in with (null for a password), so its unlinking or a new role reaches its sessions. */
    identityId: uuid("identity_id").references(() => agentIdentities.id, { onDelete: "set null" }),
    role: agentRole("role").notNull(),
    /**
     * A password session's credential: SHA-256 of the password hash it was opened with. The session check compares it
     * with the account's hash now, so a new password ends every session the old one opened, even one still being
     * opened while the password changed.
     */
    credential: text("credential"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    endReason: sessionEndReason("end_reason"),
    /** The browser's User-Agent at sign-in (at most 255 characters), to tell an agent's devices apart. */
    userAgent: text("user_agent"),
  },
  (table) => [
    index("sessions_agent_idx").on(table.agentId),
    index("sessions_last_seen_idx").on(table.lastSeenAt),
    index("sessions_identity_idx").on(table.identityId),
  ],
);

export type SessionRow = typeof sessions.$inferSelect;

export const secondFactorKind = pgEnum("second_factor_kind", ["totp", "webauthn"]);

/**
 * A password account's second factors (lib/auth/second-factor): authenticator-app secrets (TOTP, RFC 6238) and
 * security keys or passkeys (WebAuthn). A row with no `confirmedAt` is an enrolment under way (its secret shown, its
 * first code not yet typed; a key's ceremony not finished): it verifies nothing and goes when it expires.
 */
export const secondFactors = pgTable(
  "second_factors",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    kind: secondFactorKind("kind").notNull(),
    /** What the agent calls it ("Celular", "Chave USB"), shown on the account page. */
    label: text("label").notNull(),
    /** TOTP: the shared secret, AES-256-GCM sealed under a key derived from AUTH_SECRET (lib/auth/sealed.ts). */
    totpSecret: text("totp_secret"),
    /** TOTP: the time step of the last code accepted; a code of that step or before is refused (used once). */
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    /** WebAuthn: the credential's id (base64url) and COSE public key (base64url), its signature counter. */
    credentialId: text("credential_id"),
    publicKey: text("public_key"),
    signCount: bigint("sign_count", { mode: "number" }),
    transports: text("transports").array(),
    /** WebAuthn enrolment under way: the challenge the key must sign. */
    challenge: text("challenge"),
    /**
     * An enrolment under way: who started it, `sign-in:<challenge id>` or `session:<session id>`. Only that sign-in
     * or session sees its secret again and finishes it: another session of the account never reads it.
     */
    startedBy: text("started_by"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (table) => [
    index("second_factors_agent_idx").on(table.agentId),
    uniqueIndex("second_factors_credential_key").on(table.credentialId),
  ],
);

export type SecondFactor = typeof secondFactors.$inferSelect;
export type SecondFactorKind = (typeof secondFactorKind.enumValues)[number];

/** Ten single-use codes per account for when no factor is at hand, stored as argon2id hashes. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (table) => [index("recovery_codes_agent_idx").on(table.agentId)],
);

/**
 * A password sign-in between the password and its session: what is left to do (the second factor, a new password,
 * an enrolment), for at most ten minutes. The browser holds a random token in an HttpOnly cookie; the row its
 * SHA-256. Completed once: the session it opens is Auth.js's, through the `sign-in-steps` provider (auth.ts).
 */
export const signInChallenges = pgTable(
  "sign_in_challenges",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tokenHash: text("token_hash").notNull(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    /** The password's credential (lib/auth/credential.ts) when it was checked, or set during the steps. */
    credential: text("credential").notNull(),
    /** The account had factors: one must be verified (`secondFactorAt`). */
    verifyFactor: boolean("verify_factor").notNull(),
    /** The policy asks for a factor and the account has none: one must be enrolled. */
    enrolFactor: boolean("enrol_factor").notNull(),
    changePassword: boolean("change_password").notNull(),
    secondFactorAt: timestamp("second_factor_at", { withTimezone: true }),
    passwordChangedAt: timestamp("password_changed_at", { withTimezone: true }),
    /** WebAuthn: the challenge of the assertion asked for. */
    webauthnChallenge: text("webauthn_challenge"),
    /** Where the agent was going (a path of this app). */
    returnTo: text("return_to").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("sign_in_challenges_token_key").on(table.tokenHash),
    index("sign_in_challenges_expires_idx").on(table.expiresAt),
  ],
);

export type SignInChallenge = typeof signInChallenges.$inferSelect;
export type DoorKind = (typeof sessionMethod.enumValues)[number];
export type SessionEndReason = (typeof sessionEndReason.enumValues)[number];

export type Agent = typeof agents.$inferSelect;
export type NewAgent = typeof agents.$inferInsert;
export type AgentRole = (typeof agentRole.enumValues)[number];

export const saleStatus = pgEnum("sale_status", ["pending", "accepted", "rejected", "failed", "unknown"]);

/** Why a sale's personal data was erased: its retention period ended, or the customer asked (LGPD art. 18). */
export const personalDataErasure = pgEnum("personal_data_erasure", ["retention", "request"]);

/** What a supervisor learnt from the provider about an `unknown` sale. */
export const saleResolution = pgEnum("sale_resolution", ["registered", "not-registered"]);

/**
 * The ledger: one row per submission, written `pending` before the upstream is called and completed after,
 * so no sale is lost (a crash leaves a row that start-up turns `unknown`) or sent twice (the key is unique).
 */
export const sales = pgTable(
  "sales",
  {
    submissionId: uuid("submission_id").primaryKey(),
    /**
     * What people read and type back (`lib/sales/protocol.ts`): ten Crockford base32 characters with a check
     * character, stored ungrouped. The submissionId stays the key programs use.
     */
    protocol: text("protocol").notNull(),
    /**
     * The agent who sold it: the signed-in agent, or the agent an integration's key named (`sales:on-behalf`). Null
     * for a sale an integration made alone (`integrationId`); one of the two is always set.
     */
    agentId: uuid("agent_id").references(() => agents.id),
    /** The integration whose API key made the sale (lib/api/api-key.ts), or null for a sale made in a session. */
    integrationId: uuid("integration_id").references(() => integrations.id),
    status: saleStatus("status").notNull().default("pending"),
    /** The body exactly as sent upstream. */
    request: jsonb("request").$type<PartnerSaleRequestBody>().notNull(),
    attempts: integer("attempts").notNull().default(1),
    upstreamStatus: integer("upstream_status"),
    upstreamMessage: text("upstream_message"),
    /**
     * Why a sale failed (an error code) or is unknown (timeout, server-error, …): what the provider's answer was,
     * kept when a supervisor settles the sale (that decision is `resolution`).
     */
    outcomeDetail: text("outcome_detail"),
    rejectedFields: jsonb("rejected_fields").$type<PartnerSaleField[]>(),
    ...timestamps,
    completedAt: timestamp("completed_at", { withTimezone: true }),
    /** The supervisor who settled an `unknown` sale after checking with the provider, what they learnt, when. */
    settledBy: uuid("resolved_by").references(() => agents.id),
    resolution: saleResolution("resolution"),
    settledAt: timestamp("resolved_at", { withTimezone: true }),
    /**
     * The customer's name as the search box compares it (sales_fold, migration 0009: lower case, no accents), kept
     * by the database: folding it on every row searched cost more than the rest of the search together.
     */
    customerNameFolded: text("customer_name_folded").generatedAlwaysAs(
      sql`sales_fold(request ->> 'customerName')`,
    ),
    /**
     * When the customer's personal data was erased in place, and why (lib/db/queries/customer-data.ts): name,
     * e-mail, phone and birth date emptied, the CPF cut to the digits its mask shows. The sale itself stays.
     */
    personalDataErasedAt: timestamp("personal_data_erased_at", { withTimezone: true }),
    personalDataErasure: personalDataErasure("personal_data_erasure"),
    /**
     * The W3C traceparent of the request that made the sale: each webhook delivery about it (migration 0020's
     * trigger copies it into the event) is a span of that trace, whoever later changed the sale.
     */
    traceparent: text("traceparent"),
    /**
     * Claimed with an offer script's evidence (sale_evidence, written in the claim's transaction). On the row, so
     * that a concurrent re-claim of a failed sale re-reads it with the row (migration 0023): a failed sale with
     * evidence goes again only with the same evidence (lib/db/queries/sales.ts, claimSubmission).
     */
    hasEvidence: boolean("has_evidence").notNull().default(false),
    /** The customer asked for erasure while the sale was unsettled: it is erased as soon as it is settled. */
    erasureRequestedAt: timestamp("erasure_requested_at", { withTimezone: true }),
    /**
     * The CPF as a keyed digest (lib/customers/digest.ts), set when its customer asks for erasure and kept after
     * it: the operator can still confirm the erasure to them by CPF. Retention keeps none.
     */
    customerDocumentDigest: text("customer_document_digest"),
  },
  (table) => [
    // The history and its export read newest first, page after page (keyset on the first two columns), for
    // everyone, one agent or one status: each reads its page straight off its index. Agent and status last: the
    // dashboard's counts per agent over a period are read from this index alone (migration 0014).
    index("sales_created_idx").on(table.createdAt, table.submissionId, table.agentId, table.status),
    // Status last: one agent's counts per status are read from this index alone.
    index("sales_agent_created_idx").on(table.agentId, table.createdAt, table.submissionId, table.status),
    index("sales_status_created_idx").on(table.status, table.createdAt, table.submissionId),
    check(
      "sales_erasure_when_erased",
      sql`(${table.personalDataErasure} is null) = (${table.personalDataErasedAt} is null)`,
    ),
    // What retention reads: the sales not yet erased, oldest first (erased ones, the old part of the ledger, are
    // not in it); the sales a customer asked about; an erased CPF's sales.
    index("sales_retention_idx")
      .on(table.createdAt)
      .where(sql`${table.personalDataErasedAt} is null`),
    index("sales_erasure_requested_idx")
      .on(table.erasureRequestedAt)
      .where(sql`${table.erasureRequestedAt} is not null and ${table.personalDataErasedAt} is null`),
    index("sales_customer_document_digest_idx")
      .on(table.customerDocumentDigest)
      .where(sql`${table.customerDocumentDigest} is not null`),
    check(
      "sales_resolution_when_resolved",
      sql`(${table.resolution} is null) = (${table.settledAt} is null)`,
    ),
    uniqueIndex("sales_protocol_key").on(table.protocol),
    check("sales_sold_by_someone", sql`${table.agentId} is not null or ${table.integrationId} is not null`),
    // An integration's counts per status over a period (the dashboard), read from this index alone.
    index("sales_integration_created_idx")
      .on(table.integrationId, table.createdAt, table.status)
      .where(sql`${table.integrationId} is not null`),
    // The API's changes feed (GET /api/v1/sales?updatedAfter=): keyset on the time of the last change.
    index("sales_updated_idx").on(table.updatedAt, table.submissionId),
    // "Has this customer bought this plan here before?", asked before each sale the form sends; and the search box.
    index("sales_customer_document_idx").on(sql`(${table.request} ->> 'customerDocument')`),
    index("sales_customer_phone_idx").on(sql`(${table.request} ->> 'customerPhone')`),
    index("sales_external_id_idx").on(sql`(${table.request} ->> 'externalId')`),
    // Part of a name (folded once, as written) or of an e-mail: trigram indexes.
    index("sales_customer_name_trgm_idx").using("gin", table.customerNameFolded.op("gin_trgm_ops")),
    index("sales_customer_email_trgm_idx").using(
      "gin",
      sql`(${table.request} ->> 'customerEmail') gin_trgm_ops`,
    ),
  ],
);

/**
 * Sales per calendar day (in `saleCountsZone`'s time zone) and status, kept by a trigger on `sales` (migration
 * 0011): the history's counts and the dashboard's totals read a few thousand rows here instead of the ledger.
 */
export const saleDayCounts = pgTable(
  "sale_day_counts",
  {
    day: date("day", { mode: "string" }).notNull(),
    status: saleStatus("status").notNull(),
    sales: integer("sales").notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.status] })],
);

/** The one time zone whose days `sale_day_counts` counts (APP_TIME_ZONE; recounted when it changes). */
export const saleCountsZone = pgTable(
  "sale_counts_zone",
  {
    singleton: boolean("singleton").primaryKey().default(true),
    timeZone: text("time_zone").notNull(),
  },
  (table) => [check("sale_counts_zone_singleton", sql`${table.singleton}`)],
);

export type Sale = typeof sales.$inferSelect;

/** A confirmation the customer gave, as the sale's evidence records it: which, and when the agent ticked it. */
export interface EvidenceConfirmation {
  id: string;
  text: string;
  required: boolean;
  /** When the agent ticked it (the browser's clock, checked against the server's on arrival). */
  confirmedAt: string;
}

/**
 * What was offered and accepted in a scripted sale (issue 36; docs: "The evidence of a sale"), written in the
 * transaction that records the sale, before it is sent; its `evidence_hash` goes into the audit trail's hash chain
 * (`sale.evidence_recorded`), so a row changed afterwards no longer matches it. Erasure empties `recording_id` (it
 * leads to the customer's voice) and keeps its digest and the rest: the evidence that this offer was made and
 * accepted, which the partner keeps to defend the contract (LGPD art. 16, II and art. 7, VI).
 */
export const saleEvidence = pgTable("sale_evidence", {
  submissionId: uuid("submission_id")
    .primaryKey()
    .references(() => sales.submissionId),
  scriptVersion: text("script_version").notNull(),
  /** SHA-256 of the script as shown (lib/sales/offer-script.ts). */
  scriptHash: text("script_hash").notNull(),
  /** The script's text as the agent saw it, with the plan's name and price in place. */
  scriptText: text("script_text").notNull(),
  confirmations: jsonb("confirmations").$type<EvidenceConfirmation[]>().notNull(),
  /** The call's recording in the partner's telephony; emptied by erasure. */
  recordingId: text("recording_id"),
  /** SHA-256 of the recording id, kept after erasure: a recording shown later can still be matched to the sale. */
  recordingIdDigest: text("recording_id_digest"),
  agentId: uuid("agent_id").references(() => agents.id),
  /** The door the seller came through: `password`, `oidc:<issuer>`, `portal:<issuer>`, `api-key:<integration>`. */
  door: text("door").notNull(),
  recordedAt: timestamp("recorded_at", { withTimezone: true }).notNull(),
  /** SHA-256 of the record's canonical JSON (lib/sales/evidence.ts), also in its audit row. */
  evidenceHash: text("evidence_hash").notNull(),
});

export type SaleEvidence = typeof saleEvidence.$inferSelect;
export type SaleStatus = (typeof saleStatus.enumValues)[number];
export type SaleResolution = (typeof saleResolution.enumValues)[number];

/** `jti`s of signed embed tokens already used, kept until the token would have expired anyway. */
export const embedTokenUses = pgTable("embed_token_uses", {
  jti: text("jti").primaryKey(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Who did what (LGPD art. 37: a record of the processing; ASVS V16: accounts and identities), appended and never
 * changed: a trigger refuses UPDATE, DELETE and TRUNCATE (migration 0012), and each row's `hash` covers its content
 * and the previous row's hash (migration 0013's trigger, in `seq` order), so an edited, deleted or missing row shows
 * in `npm run audit -- verify`. Rows name the actor and the door they came through and, where one sale is
 * concerned, its protocol; never a customer's data. `details` holds counts, filter names and what changed.
 */
export const auditAction = pgEnum("audit_action", [
  "customer.found",
  "customer.exported",
  "customer.erased",
  "retention.erased",
  "history.exported",
  "sale.settled",
  "sale.evidence_recorded",
  "sale.dispute_pack_exported",
  "agent.changed",
  "agent.created",
  "agent.identity_linked",
  "agent.identity_unlinked",
  "agent.role_changed",
  "agent.password_changed",
  "agent.second_factor_added",
  "agent.second_factor_removed",
  "agent.second_factor_reset",
  "agent.recovery_codes_generated",
  "api_key.created",
  "api_key.revoked",
  "api_key.expiry_set",
  "api_key.refused",
  "webhook.added",
  "webhook.disabled",
  "webhook.enabled",
  "webhook.secret_rotated",
  "webhook.removed",
  "webhook.replayed",
]);

export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    action: auditAction("action").notNull(),
    /** The agent or supervisor who acted in the app; null for the operator's CLI and the app's own jobs. */
    agentId: uuid("agent_id").references(() => agents.id),
    /** "agent:<id>", "cli:<operating-system user>", "retention" or "system". */
    actor: text("actor").notNull(),
    /** How the actor came in: `password`, `oidc:<issuer>`, `portal:<issuer>`, `cli`, `system`. */
    door: text("door"),
    /** The sale concerned, when one is. */
    protocol: text("protocol"),
    /** What the operator gave with --reason. */
    reason: text("reason"),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    /**
     * The chain: position, the previous row's hash, this row's. The trigger sets them on insert, over whatever the
     * insert says (the placeholders below, so the app never writes them itself).
     */
    seq: bigint("seq", { mode: "number" })
      .notNull()
      .$default(() => 0),
    prevHash: text("prev_hash")
      .notNull()
      .$default(() => ""),
    hash: text("hash")
      .notNull()
      .$default(() => ""),
  },
  (table) => [
    index("audit_events_at_idx").on(table.at),
    uniqueIndex("audit_events_seq_key").on(table.seq),
    // A sale's rows (its dispute pack, lib/sales/dispute-pack.ts).
    index("audit_events_protocol_idx")
      .on(table.protocol)
      .where(sql`${table.protocol} is not null`),
  ],
);

export type AuditEvent = typeof auditEvents.$inferSelect;
export type AuditAction = (typeof auditAction.enumValues)[number];

/**
 * Who runs a periodic job now (retention), so that of several instances one at a time does: taken with a
 * conditional upsert, renewed as the job goes, given back when it ends, and free again by itself when its holder
 * died (`expiresAt`). lib/db/queries/job-leases.ts.
 */
export const jobLeases = pgTable("job_leases", {
  job: text("job").primaryKey(),
  holder: text("holder").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});

/** What a webhook endpoint hears (docs/api-and-webhooks.md: Webhooks). */
export const WEBHOOK_EVENT_TYPES = [
  "sale.accepted",
  "sale.rejected",
  "sale.failed",
  "sale.unknown",
  "sale.settled",
  "customer.erased",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * A partner's receiver of signed events (`npm run webhooks`, lib/webhooks). Its signing secret is needed to sign, so
 * it is kept sealed with AUTH_SECRET (lib/auth/second-factor/sealed.ts), never in clear; after `rotate-secret` the
 * previous one signs too until `previousSecretUntil`.
 */
export const webhookEndpoints = pgTable("webhook_endpoints", {
  id: uuid("id").primaryKey().defaultRandom(),
  url: text("url").notNull(),
  events: text("events").array().notNull(),
  /** Whether payloads carry the customer's data (LGPD: off unless the operator says so). */
  includeCustomer: boolean("include_customer").notNull().default(false),
  secretSealed: text("secret_sealed").notNull(),
  previousSecretSealed: text("previous_secret_sealed"),
  previousSecretUntil: timestamp("previous_secret_until", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
  /** Set when a delivery gave up after the last retry; cleared by the next success or by `enable`. */
  failingSince: timestamp("failing_since", { withTimezone: true }),
});
export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;

/**
 * The outbox: an event, written in the transaction of the change that causes it (a trigger on sales, migration
 * 0020; the erasure's own transaction), with what it says as of then. `seq` orders a sale's events.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    /** The `webhook-id` receivers deduplicate by: the same in every attempt and every replay. */
    id: uuid("id").primaryKey().defaultRandom(),
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
    type: text("type").$type<WebhookEventType>().notNull(),
    /** The sale it is about; null for `customer.erased` (its sales are in `snapshot`). */
    submissionId: uuid("submission_id"),
    snapshot: jsonb("snapshot").$type<Record<string, unknown>>().notNull(),
    /** The W3C traceparent of the change, so that each delivery's span joins the sale's trace. */
    traceparent: text("traceparent"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("webhook_events_seq_key").on(table.seq),
    index("webhook_events_created_idx").on(table.createdAt),
  ],
);
export type WebhookEvent = typeof webhookEvents.$inferSelect;

export const webhookDeliveryState = pgEnum("webhook_delivery_state", ["pending", "delivered", "dead"]);

/**
 * One event to one endpoint: claimed by one dispatcher at a time (a lease), retried until delivered or dead. Its
 * event and endpoint are not foreign keys (migration 0022): each key's check cost a query per row in the sale's own
 * transaction. Their writers (enqueue_webhook_event, replayWebhookEvents) take both from their tables, events are
 * never deleted, and removeWebhookEndpoint deletes the endpoint's deliveries itself (lib/db/queries/webhooks.ts).
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    eventId: uuid("event_id").notNull(),
    endpointId: uuid("endpoint_id").notNull(),
    /** Deliveries with the same key reach an endpoint in `seq` order: the sale (or the erasure event itself). */
    orderKey: uuid("order_key").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    state: webhookDeliveryState("state").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    leasedBy: text("leased_by"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.eventId, table.endpointId] }),
    index("webhook_deliveries_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.state} = 'pending'`),
    index("webhook_deliveries_order_idx")
      .on(table.endpointId, table.orderKey, table.seq)
      .where(sql`${table.state} = 'pending'`),
  ],
);

/** Each attempt, for `webhooks list` and the operator: when, how long, the answer's status or why none. No bodies. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    eventId: uuid("event_id").notNull(),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    durationMs: integer("duration_ms").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
  },
  (table) => [index("webhook_attempts_endpoint_idx").on(table.endpointId, table.at)],
);
