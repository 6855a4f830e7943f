import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The one dashboard admin account (row id 1); only an argon2id hash of the password is kept. */
export const adminAccount = sqliteTable("admin_account", {
  id: integer("id").primaryKey(),
  username: text("username").notNull(),
  passwordHash: text("password_hash").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  /** `config` while config.json owns the account, `api` once it was changed through the API. */
  source: text("source", { enum: ["config", "api"] }).notNull(),
  /** Fingerprint of the config.json `auth` section last applied, to notice when it changes. */
  configFingerprint: text("config_fingerprint"),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * Dashboard sessions (admin or RBAC user) and setup-lock sessions. The id is the SHA-256 of
 * the token, so the table never holds a usable credential.
 */
export const accessSessions = sqliteTable(
  "access_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    kind: text("kind", { enum: ["admin", "user", "setup"] }).notNull(),
    /** Admin username, user id, or the fingerprint of the setup token the session was exchanged for. */
    subject: text("subject").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("access_sessions_subject_idx").on(table.kind, table.subject)],
);

export const rbacRoles = sqliteTable("rbac_roles", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  description: text("description").notNull().default(""),
  builtin: integer("builtin", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export const rbacRolePermissions = sqliteTable(
  "rbac_role_permissions",
  {
    roleId: integer("role_id")
      .notNull()
      .references(() => rbacRoles.id, { onDelete: "cascade" }),
    permissionId: integer("permission_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.roleId, table.permissionId] })],
);

export const rbacUsers = sqliteTable("rbac_users", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  name: text("name").notNull().default(""),
  roleId: integer("role_id")
    .notNull()
    .references(() => rbacRoles.id),
  /** argon2id; null for a user who cannot log in (yet). */
  passwordHash: text("password_hash"),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** Who an RBAC user is at an OpenID Connect provider: created at their first sign-in. */
export const oidcIdentities = sqliteTable(
  "oidc_identities",
  {
    provider: text("provider").notNull(),
    /** The provider's `sub` claim: stable for the account, unlike an email address. */
    subject: text("subject").notNull(),
    userId: text("user_id")
      .notNull()
      .unique()
      .references(() => rbacUsers.id, { onDelete: "cascade" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    lastSignInAt: integer("last_sign_in_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.subject] })],
);

/**
 * The states of OpenID Connect sign-ins that reached their callback, kept until their login would
 * have expired: a sign-in's sealed cookie opens one session, once, on whichever node takes it.
 */
export const oidcUsedStates = sqliteTable("oidc_used_states", {
  /** SHA-256 of the state. */
  stateHash: text("state_hash").primaryKey(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
});

/** Management API keys: the value is shown once; only its SHA-256 and a short prefix are kept. */
export const managementApiKeys = sqliteTable("management_api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  description: text("description"),
  keyHash: text("key_hash").notNull().unique(),
  keyPrefix: text("key_prefix").notNull(),
  scopes: text("scopes", { mode: "json" }).$type<number[]>().notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
  /** The user the key belongs to: it stops working when that user is deleted. */
  ownerUserId: text("owner_user_id"),
  createdByType: text("created_by_type").notNull(),
  createdById: text("created_by_id").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** Append-only audit trail; `signature` is HMAC-SHA256 over every other column. */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    occurredAt: integer("occurred_at", { mode: "timestamp_ms" }).notNull(),
    initiatorType: text("initiator_type").notNull(),
    initiatorId: text("initiator_id").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    outcome: text("outcome", { enum: ["success", "failure", "denied"] }).notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    ip: text("ip").notNull(),
    /** Redacted before/after summary as JSON text, signed exactly as stored. */
    summary: text("summary").notNull(),
    signature: text("signature").notNull(),
  },
  (table) => [index("audit_events_occurred_at_idx").on(table.occurredAt)],
);

export type AdminAccountRow = typeof adminAccount.$inferSelect;
export type AccessSessionRow = typeof accessSessions.$inferSelect;
export type RbacRoleRow = typeof rbacRoles.$inferSelect;
export type RbacUserRow = typeof rbacUsers.$inferSelect;
export type OidcIdentityRow = typeof oidcIdentities.$inferSelect;
export type ManagementApiKeyRow = typeof managementApiKeys.$inferSelect;
export type AuditEventRow = typeof auditEvents.$inferSelect;
