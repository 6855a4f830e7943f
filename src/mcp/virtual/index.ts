import type { Database } from "../../db/client";
import { mcpVirtualServers } from "../../db/schema";
import { reloadOnChange } from "../../db/table-changes";
import type { VirtualKeyDirectory } from "../caller";
import type { McpClientRegistry } from "../clients/registry";
import type { EmbedTexts } from "../search/vector-ranking";
import { virtualServerRoutes } from "./routes";
import { VirtualServerStore } from "./store";

/** Virtual MCP servers: their store (loaded, and reloaded when another node writes one) and their management routes. */
export async function createVirtualServers(db: Database, registry: McpClientRegistry, virtualKeys: VirtualKeyDirectory, options: { embed?: EmbedTexts; changeCheckMs?: number } = {}) {
  const store = new VirtualServerStore(db, { clientExists: (name) => registry.byName(name) !== undefined, virtualKeyExists: async (id) => (await virtualKeys.byId(id)) !== undefined }, options.embed);
  const watched = reloadOnChange(db, [mcpVirtualServers], () => store.load(), options.changeCheckMs);
  await store.load();
  return { store, routes: virtualServerRoutes(store), stop: () => watched.stop() };
}
