import { Type as t } from "@sinclair/typebox";
import { logView } from "../../logs/search";
import { LIMITS } from "../config/schema";
import type { Embedder } from "../log-index/embedder";
import { embeddingSpaceOf } from "../log-index/embedding-space";
import { embeddableText } from "../log-index/log-text";
import type { LogVectorStore } from "../log-index/vector-store";
import { compactLog, truncated } from "./log-views";
import { defineTool, type WarpTool } from "./tool";

const EXCERPT_CHARS = 300;

/**
 * Searches logs by meaning: the question is embedded with the configured embedding model and
 * compared with the indexed logs of the configured namespace; only logs at least
 * `semantic_search_threshold` similar come back, at most `semantic_search_limit` of them.
 */
export const semanticSearchTool = (embed: Embedder, vectors: LogVectorStore): WarpTool =>
  defineTool({
    name: "semantic_search_logs",
    description: "Finds request logs whose request or response content is about the given text, closest first, with their similarity (0..1) and an excerpt. Only indexed logs are searched.",
    permission: "Logs:View",
    parameters: t.Object({
      query: t.String({ minLength: 1, description: "what the logs should be about" }),
      limit: t.Optional(t.Integer({ minimum: 1, maximum: LIMITS.semanticSearchLimit, description: "at most this many logs (the configured limit caps it)" })),
    }),
    async run(args, { config, signal }) {
      const space = embeddingSpaceOf(config);
      const [vector] = await embed([args.query], space, { timeoutSeconds: config.request_timeout_seconds, signal });
      const limit = Math.min(args.limit ?? config.semantic_search_limit, config.semantic_search_limit);
      const found = await vectors.search(space, vector!, limit, config.semantic_search_threshold);
      return {
        threshold: config.semantic_search_threshold,
        logs: found.map(({ log: { requestContent, responseContent, ...summary }, similarity }) => ({
          similarity: Math.round(similarity * 10_000) / 10_000,
          ...compactLog(logView(summary)),
          excerpt: truncated(embeddableText(requestContent, responseContent), EXCERPT_CHARS),
        })),
      };
    },
  });
