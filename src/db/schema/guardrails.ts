import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { GuardrailCheck, GuardrailScope } from "./types";

/** Guardrail policies: checks on what requests send and replies answer, attached to a scope. */
export const guardrailPolicies = sqliteTable("guardrail_policies", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  scope: text("scope").$type<GuardrailScope>().notNull(),
  /** The virtual key, team, customer or routing rule; null for a global policy. */
  scopeId: text("scope_id"),
  restoreRedacted: integer("restore_redacted", { mode: "boolean" }).notNull(),
  checks: text("checks", { mode: "json" }).$type<GuardrailCheck[]>().notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export type GuardrailPolicyRow = typeof guardrailPolicies.$inferSelect;
