import { asc, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { type PluginRow, plugins } from "../db/schema";

export type PluginSettings = Pick<PluginRow, "path" | "enabled" | "config">;

/** The plugins table: custom plugins and the operator's settings for built-in ones. */
export class PluginStore {
  constructor(private readonly db: Database) {}

  all(): Promise<PluginRow[]> {
    return this.db.select().from(plugins).orderBy(asc(plugins.createdAt), asc(plugins.name));
  }

  async insert(name: string, settings: PluginSettings, runOrder: number): Promise<PluginRow> {
    const now = new Date();
    const row = { name, ...settings, runOrder, createdAt: now, updatedAt: now };
    await this.db.insert(plugins).values(row);
    return row;
  }

  /** Insert or replace: a built-in gets its row the first time its settings change. */
  async save(name: string, settings: PluginSettings, runOrder: number): Promise<void> {
    const now = new Date();
    await this.db
      .insert(plugins)
      .values({ name, ...settings, runOrder, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: plugins.name, set: { ...settings, runOrder, updatedAt: now } });
  }

  async remove(name: string): Promise<void> {
    await this.db.delete(plugins).where(eq(plugins.name, name));
  }
}
