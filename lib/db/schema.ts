import { sql } from "drizzle-orm";
import { check, integer, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

export const agentRole = pgEnum("agent_role", ["agent", "supervisor"]);

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

export const agents = pgTable(
  "agents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Stored lower-case: e-mails are case-insensitive and unique. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: agentRole("role").notNull().default("agent"),
    /** argon2id PHC string; null for agents who only sign in through a partner portal. */
    passwordHash: text("password_hash"),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    /** Sessions issued before this instant are refused (set on disable and on password reset). */
    sessionsValidFrom: timestamp("sessions_valid_from", { withTimezone: true }).notNull().defaultNow(),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("agents_email_key").on(table.email),
    check("agents_email_lower_case", sql`${table.email} = lower(${table.email})`),
  ],
);

/** Failed sign-ins per key ("account:<email>" or "address:<ip>"), kept in the database so limits survive restarts. */
export const signInThrottle = pgTable("sign_in_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStartedAt: timestamp("window_started_at", { withTimezone: true }).notNull().defaultNow(),
  lockedUntil: timestamp("locked_until", { withTimezone: true }),
  lockouts: integer("lockouts").notNull().default(0),
});

export type Agent = typeof agents.$inferSelect;
export type AgentRole = (typeof agentRole.enumValues)[number];
