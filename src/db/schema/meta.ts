import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Small facts about the deployment itself (generated secrets, whether config.json was seeded). */
export const gatewayMeta = sqliteTable("gateway_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
