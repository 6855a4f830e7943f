import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Where a notification goes: chat, paging, mail, or a registered webhook endpoint. */
export const ALERT_CHANNEL_TYPES = ["slack", "teams", "pagerduty", "email", "webhook"] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

/** Where a rule's lifecycle stands (actors/alert-rule.ts), as the rule's row mirrors it. */
export const ALERT_STATES = ["ok", "pending", "firing", "resolved"] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export const ALERT_SEVERITIES = ["info", "warning", "critical"] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** What a rule watches: the whole gateway, or one provider, model, virtual key, team or customer. */
export const ALERT_SCOPES = ["global", "provider", "model", "virtual_key", "team", "customer"] as const;
export type AlertScope = (typeof ALERT_SCOPES)[number];

/**
 * A notification channel. `settings` holds what may be shown (an SMTP host, the PagerDuty
 * events URL, the webhook endpoint's id); `sealed_secret` what may not (an incoming-webhook
 * URL, a routing key, an SMTP password), sealed with the secret box.
 */
export const alertChannels = sqliteTable("alert_channels", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  type: text("type", { enum: ALERT_CHANNEL_TYPES }).notNull(),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  sealedSecret: text("sealed_secret"),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
export type AlertChannelRow = typeof alertChannels.$inferSelect;

/**
 * An alert rule: a CEL condition over the figures of its scope in a window, checked every
 * `interval_seconds`. Its lifecycle (state, since when, the last figures, a silence, an
 * acknowledgement) lives in its `alert-rule` actor and is mirrored here in the same commit.
 */
export const alertRules = sqliteTable("alert_rules", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  condition: text("condition").notNull(),
  window: text("window").notNull(),
  intervalSeconds: integer("interval_seconds").notNull(),
  forSeconds: integer("for_seconds").notNull(),
  cooldownSeconds: integer("cooldown_seconds").notNull(),
  severity: text("severity", { enum: ALERT_SEVERITIES }).notNull(),
  scope: text("scope", { enum: ALERT_SCOPES }).notNull(),
  scopeId: text("scope_id"),
  channelIds: text("channel_ids", { mode: "json" }).$type<string[]>().notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  /** The built-in rule this one was made from, if any. */
  builtin: text("builtin"),
  state: text("state", { enum: ALERT_STATES }).notNull().default("ok"),
  stateSince: integer("state_since", { mode: "timestamp_ms" }),
  lastEvaluatedAt: integer("last_evaluated_at", { mode: "timestamp_ms" }),
  lastFigures: text("last_figures", { mode: "json" }).$type<Record<string, number>>(),
  silencedUntil: integer("silenced_until", { mode: "timestamp_ms" }),
  acknowledgedBy: text("acknowledged_by"),
  acknowledgedAt: integer("acknowledged_at", { mode: "timestamp_ms" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
export type AlertRuleRow = typeof alertRules.$inferSelect;

/** Each change of a rule's state, with the figures that caused it: the Alerts page's history. */
export const alertHistory = sqliteTable(
  "alert_history",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    ruleId: text("rule_id").notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    fromState: text("from_state"),
    toState: text("to_state").notNull(),
    figures: text("figures", { mode: "json" }).$type<Record<string, number>>(),
    note: text("note"),
  },
  (table) => [index("alert_history_rule_idx").on(table.ruleId, table.seq)],
);
