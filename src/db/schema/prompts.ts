import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A prompt's template as one version holds it (src/prompts/schemas.ts PromptTemplate). */
export interface StoredPromptTemplate {
  messages: Array<Record<string, unknown>>;
  variables: Array<{ name: string; type?: "string" | "number" | "boolean" | "object" | "array"; required?: boolean; default?: unknown; description?: string }>;
  model?: string;
  parameters: Record<string, unknown>;
}

/** Prompts kept out of application code: a name, a folder, and versions below. */
export const prompts = sqliteTable("prompts", {
  name: text("name").primaryKey(),
  folder: text("folder").notNull(),
  description: text("description").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** Immutable versions: a new one is a new row; the primary key makes two nodes' version 3 one. */
export const promptVersions = sqliteTable(
  "prompt_versions",
  {
    prompt: text("prompt").notNull(),
    version: integer("version").notNull(),
    template: text("template", { mode: "json" }).$type<StoredPromptTemplate>().notNull(),
    commitMessage: text("commit_message").notNull(),
    author: text("author").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.prompt, table.version] })],
);

/** Labels (`production`, `staging`, ...) point at one version each and move in one write. */
export const promptLabels = sqliteTable(
  "prompt_labels",
  {
    prompt: text("prompt").notNull(),
    label: text("label").notNull(),
    version: integer("version").notNull(),
    movedBy: text("moved_by").notNull(),
    movedAt: integer("moved_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.prompt, table.label] })],
);

export type PromptRow = typeof prompts.$inferSelect;
export type PromptVersionRow = typeof promptVersions.$inferSelect;
export type PromptLabelRow = typeof promptLabels.$inferSelect;
