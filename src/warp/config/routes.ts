import { Elysia } from "elysia";
import { noteAudit } from "../../access";
import { conflict } from "../../http/errors";
import type { ProviderStore } from "../../provider-registry/store";
import { keptSince } from "../conversations/ownership";
import type { ConversationStore } from "../conversations/store";
import type { LogBackfill } from "../log-index/backfill";
import type { LogVectorStore } from "../log-index/vector-store";
import { resolveWarpConfig } from "./resolve";
import { EMBEDDING_FIELDS, type StoredWarpConfig, WarpConfigInput, WarpConfigReply } from "./schema";
import { replies } from "../../http/replies";
import type { WarpConfigStore } from "./store";
import { validateWarpConfig } from "./validate";
import { warpConfigView } from "./view";

export interface WarpConfigDeps {
  store: WarpConfigStore;
  providers: ProviderStore;
  vectors: LogVectorStore;
  backfill: LogBackfill;
  conversations: ConversationStore;
  clock: () => Date;
}

/** Spec 4.1 rule 8: a running backfill keeps the embedding configuration it started with. */
function assertEmbeddingKept(before: StoredWarpConfig, after: StoredWarpConfig, backfill: LogBackfill): void {
  const changed = EMBEDDING_FIELDS.find((field) => before[field] !== after[field]);
  if (changed && backfill.isRunning()) throw conflict(`${changed} cannot change while a log-index backfill is running; cancel it first (POST /api/warp/log-index/backfill/cancel)`, changed);
}

/** GET and PUT /api/warp/config (spec 4.1, 2.1, 2.2); who may write is in the route-access table. */
export const warpConfigRoutes = ({ store, providers, vectors, backfill, conversations, clock }: WarpConfigDeps) =>
  new Elysia({ name: "warp-config", prefix: "/api/warp" })
    .get("/config", async () => warpConfigView(await store.read(), await vectors.connected()), replies({ 200: WarpConfigReply }, { summary: "Get the Warp configuration" }))
    .put(
      "/config",
      async ({ body, request }) => {
        const next = resolveWarpConfig(body);
        validateWarpConfig(next, providers);
        const current = await store.read();
        assertEmbeddingKept(current, next, backfill);
        const now = clock();
        // Chats already past the retention in force are gone for good: a longer retention does not bring them back.
        await conversations.removeOlderThan(keptSince(current, now));
        await store.write(next, now);
        const connected = await vectors.connected();
        noteAudit(request, { targetId: "warp_config", before: warpConfigView(current, connected), after: warpConfigView(next, connected) });
        return warpConfigView(next, connected);
      },
      { body: WarpConfigInput, ...replies({ 200: WarpConfigReply }, { summary: "Set the Warp configuration", description: "Zeros and omitted fields take their defaults; embedding settings cannot change while a log-index backfill runs." }) },
    );
