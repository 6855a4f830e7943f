import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { BudgetSpec, ComplexityReference, McpConfig, McpToolSearch, PricePatch, ProviderConfig, RateLimitSpec, RoutingTarget, SessionBudget, VideoPoll } from "./types";

const timestamps = {
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
};

/** What customers, teams and virtual keys share: spending caps and throughput limits. */
const limits = {
  budgets: text("budgets", { mode: "json" }).$type<BudgetSpec[]>().notNull().default([]),
  rateLimit: text("rate_limit", { mode: "json" }).$type<RateLimitSpec | null>(),
};

export const governanceCustomers = sqliteTable("governance_customers", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  ...limits,
  ...timestamps,
});

export const governanceTeams = sqliteTable("governance_teams", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  customerId: text("customer_id").references(() => governanceCustomers.id, { onDelete: "set null" }),
  ...limits,
  ...timestamps,
});

/** The key value itself is never stored: `key_hash` is its SHA-256, `key_prefix` enough to recognise it. */
export const governanceVirtualKeys = sqliteTable("governance_virtual_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  description: text("description").notNull().default(""),
  isActive: integer("is_active", { mode: "boolean" }).notNull(),
  keyHash: text("key_hash").notNull().unique(),
  keyPrefix: text("key_prefix").notNull(),
  teamId: text("team_id").references(() => governanceTeams.id, { onDelete: "set null" }),
  customerId: text("customer_id").references(() => governanceCustomers.id, { onDelete: "set null" }),
  providerConfigs: text("provider_configs", { mode: "json" }).$type<ProviderConfig[]>().notNull().default([]),
  mcpConfigs: text("mcp_configs", { mode: "json" }).$type<McpConfig[]>().notNull().default([]),
  /** Tool search in the key's chat requests; null: off unless a request asks. */
  mcpToolSearch: text("mcp_tool_search", { mode: "json" }).$type<McpToolSearch | null>(),
  agentGrants: text("agent_grants", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** The only prompts the key may run, and then nothing but runs of them; empty: no such limit. */
  allowedPrompts: text("allowed_prompts", { mode: "json" }).$type<string[]>().notNull().default([]),
  sessionBudgets: text("session_budgets", { mode: "json" }).$type<SessionBudget | null>(),
  /** Keep every streamed reply of the key resumable, as `x-gw-resumable: true` asks (the header's `false` still opts a call out). */
  resumableStreams: integer("resumable_streams", { mode: "boolean" }).notNull().default(false),
  ...limits,
  ...timestamps,
});

export const governanceRoutingRules = sqliteTable(
  "governance_routing_rules",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    celExpression: text("cel_expression").notNull(),
    targets: text("targets", { mode: "json" }).$type<RoutingTarget[]>().notNull(),
    fallbacks: text("fallbacks", { mode: "json" }).$type<string[]>().notNull().default([]),
    scope: text("scope", { enum: ["global", "customer", "team", "virtual_key"] }).notNull(),
    scopeId: text("scope_id"),
    priority: integer("priority").notNull(),
    ...timestamps,
  },
  (table) => [index("governance_routing_rules_scope_idx").on(table.scope, table.scopeId, table.priority)],
);

export const governancePricingOverrides = sqliteTable("governance_pricing_overrides", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  scopeKind: text("scope_kind", { enum: ["global", "provider", "provider_key", "virtual_key"] }).notNull(),
  /** The provider, provider key or virtual key the override is narrowed to; null when global. */
  scopeId: text("scope_id"),
  matchType: text("match_type", { enum: ["exact", "prefix"] }).notNull(),
  pattern: text("pattern").notNull(),
  requestTypes: text("request_types", { mode: "json" }).$type<string[]>().notNull().default([]),
  patch: text("patch", { mode: "json" }).$type<PricePatch>().notNull(),
  ...timestamps,
});

/**
 * Budget and rate-limit counters, written behind the in-memory copy the hot path uses so they
 * survive a restart. `counter_id` names the owner and the window (`vk:<id>:budget:1d:calendar`).
 */
export const governanceUsage = sqliteTable("governance_usage", {
  counterId: text("counter_id").primaryKey(),
  used: real("used").notNull(),
  windowStart: integer("window_start", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * What the nodes sharing a database have claimed of each budget and rate limit in its current
 * window: a node serves requests from its slice, so the nodes together never pass the limit.
 * `last_grant` is what the latest claim got, read back in the same write.
 */
export const governanceQuota = sqliteTable("governance_quota", {
  counterId: text("counter_id").primaryKey(),
  claimed: real("claimed").notNull(),
  lastGrant: real("last_grant").notNull(),
  windowStart: integer("window_start", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** What one budget was charged for a video being made, in the window it was charged in. */
export interface HeldCharge {
  counterId: string;
  windowStart: number;
  windowMs: number;
  amount: number;
  /** On a database several nodes share: the window of the limit's claimed total (governance_quota) the charge was added to, and is given back to. */
  quotaWindowStart?: number;
}

/**
 * Budget charges for videos still being made (Sora's, Veo's), held until a read of the video says
 * how it ended (a client's, or the gateway's own when no client reads it): a video that failed is
 * given its charges back, once; one that was made keeps them.
 */
export const governanceVideoCharges = sqliteTable(
  "governance_video_charges",
  {
    provider: text("provider").notNull(),
    /** Sora's video id, or the id of the Veo operation making the video. */
    videoId: text("video_id").notNull(),
    charges: text("charges", { mode: "json" }).$type<HeldCharge[]>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    /** How the gateway reads the video itself when no client has; null for charges held before it could. */
    poll: text("poll", { mode: "json" }).$type<VideoPoll>(),
    /** When the gateway last read the video itself. */
    checkedAt: integer("checked_at", { mode: "timestamp_ms" }),
  },
  (table) => [primaryKey({ columns: [table.provider, table.videoId] }), index("governance_video_charges_created_idx").on(table.createdAt)],
);

export type CustomerRow = typeof governanceCustomers.$inferSelect;
export type TeamRow = typeof governanceTeams.$inferSelect;
export type VirtualKeyRow = typeof governanceVirtualKeys.$inferSelect;
export type RoutingRuleRow = typeof governanceRoutingRules.$inferSelect;
export type PricingOverrideRow = typeof governancePricingOverrides.$inferSelect;

/** The complexity tiers routing rules may read, lowest first, and the labelled prompts that place an undecided request; one row, absent until written. */
export const governanceComplexity = sqliteTable("governance_complexity", {
  id: text("id").primaryKey(),
  tiers: text("tiers", { mode: "json" }).$type<string[]>().notNull(),
  references: text("reference_prompts", { mode: "json" }).$type<ComplexityReference[]>().notNull(),
  /** `provider/model` asked for the tier when neither the signals nor the references place a request; null: none. */
  classifierModel: text("classifier_model"),
  ...timestamps,
});

/** What each session (conversation id) of a virtual key with `session_budgets` spent, on every node: added to in one statement per charge. */
export const governanceSessionSpend = sqliteTable(
  "governance_session_spend",
  {
    virtualKeyId: text("virtual_key_id").notNull(),
    sessionId: text("session_id").notNull(),
    cost: real("cost").notNull(),
    tokens: integer("tokens").notNull(),
    requests: integer("requests").notNull(),
    lastAt: integer("last_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.virtualKeyId, table.sessionId] }), index("governance_session_spend_recent_idx").on(table.virtualKeyId, table.lastAt)],
);
