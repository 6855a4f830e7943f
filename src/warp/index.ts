import { Elysia } from "elysia";
import type { Database } from "../db/client";
import { warpConfig } from "../db/schema/warp";
import { reloadOnChange } from "../db/table-changes";
import type { Governance } from "../governance";
import type { Inference } from "../inference/handle";
import type { ReadDatabase } from "../logs/worker-reader";
import type { ProviderStore } from "../provider-registry/store";
import { chatRoutes } from "./agent/routes";
import { warpConfigRoutes } from "./config/routes";
import { WarpConfigStore } from "./config/store";
import { conversationRoutes } from "./conversations/routes";
import { ConversationStore } from "./conversations/store";
import { LogBackfill } from "./log-index/backfill";
import { pipelineEmbedder } from "./log-index/embedder";
import { LiveLogIndexer } from "./log-index/live-indexer";
import { logIndexRoutes } from "./log-index/routes";
import { LogVectorStore } from "./log-index/vector-store";
import { scheduleMaintenance } from "./maintenance";
import { logTools } from "./tools/log-tools";
import { semanticSearchTool } from "./tools/semantic-search-tool";
import { usageTools } from "./tools/usage-tools";

export interface WarpOptions {
  db: Database;
  /** Where the agent's queries over logs and usage run (the request logs' reader thread). */
  reads: ReadDatabase;
  providers: ProviderStore;
  /** The pipeline the agent's chat and embedding calls go through (resolved late: it is built after). */
  inference: () => Inference;
  governance: Governance;
  /** Milliseconds since the epoch: conversation times and retention. */
  clock: () => number;
  maintenanceIntervalMs?: number;
}

/**
 * Warp, the dashboard agent: its configuration (spec 4.1), the chat over the deployment's own
 * telemetry, the log embedding index with its backfill, and saved conversations.
 * `indexWrittenLogs` is to be called with every batch the request-log writer stores.
 */
export function createWarp({ db, reads, providers, inference, governance, clock, maintenanceIntervalMs = 3_600_000 }: WarpOptions) {
  const now = () => new Date(clock());
  const config = new WarpConfigStore(db, () => live.configChanged());
  const conversations = new ConversationStore(db);
  const vectors = new LogVectorStore(db);
  const embed = pipelineEmbedder(inference);
  const backfill = new LogBackfill({ vectors, embed, now });
  const live = new LiveLogIndexer({ vectors, embed, readConfig: () => config.read(), now });
  // The configuration is read on every use; only the live indexer remembers a read, until a write.
  const watched = reloadOnChange(db, [warpConfig], async () => live.configChanged());
  const tools = [...logTools(reads), ...usageTools(reads, governance), semanticSearchTool(embed, vectors)];
  const maintenance = scheduleMaintenance({ config, conversations, vectors, clock: now, intervalMs: maintenanceIntervalMs });

  const routes = new Elysia({ name: "warp" })
    .use(warpConfigRoutes({ store: config, providers, vectors, backfill, conversations, clock: now }))
    .use(chatRoutes({ inference, config, conversations, tools, clock: now }))
    .use(logIndexRoutes({ config, vectors, backfill, live }))
    .use(conversationRoutes({ config, conversations, clock: now }));

  return {
    routes,
    indexWrittenLogs: live.accept,
    async stop() {
      await watched.stop();
      await maintenance.stop();
      await backfill.cancel();
      await live.stop();
    },
  };
}

export type Warp = ReturnType<typeof createWarp>;
