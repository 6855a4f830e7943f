import type { HookReply, RequestContext } from "../inference/hooks";
import type { Operation } from "../upstream/operations";
import type { PluginHooks, PluginHost } from "../plugins";
import { captureResponse, replayableHeaders } from "./capture";
import { type CacheDirectives, cacheDirectivesOf } from "./cache-directives";
import type { ResolvedCacheConfig } from "./config";
import type { Embedder } from "./embedder";
import { replay } from "./replay";
import { conversationText, type RequestKeys, requestKeys } from "./request-key";
import type { CacheStore, NewCacheEntry } from "./store";

const CACHEABLE: ReadonlySet<Operation> = new Set(["chat", "text_completion", "embedding", "responses", "rerank"]);
const SEMANTIC: ReadonlySet<Operation> = new Set(["chat", "text_completion", "responses"]);

export interface CacheDeps {
  store: CacheStore;
  embed: Embedder;
}

/** What a miss leaves for `transformResponse`, to store the response under. */
interface PendingStore {
  cacheKey: string;
  keys: RequestKeys;
  ttlSeconds: number;
  embedding?: NewCacheEntry["embedding"];
}

type SemanticProbe = { reply?: HookReply; embedding?: PendingStore["embedding"] };

/**
 * The response cache plugin. `admit` answers from the cache (exact match first, then the
 * closest semantic match) or notes how to store the response; `transformResponse` stores a
 * successful one. Semantic lookups and writes that fail are logged and skipped.
 */
export class ResponseCacheHooks implements PluginHooks {
  private readonly pending = new WeakMap<RequestContext, PendingStore>();

  constructor(
    private readonly config: ResolvedCacheConfig,
    private readonly deps: CacheDeps,
    private readonly host: PluginHost,
  ) {}

  /** Synchronous for a request that asks for no caching: most of them. */
  admit(context: RequestContext): Promise<HookReply | undefined> | undefined {
    if (!CACHEABLE.has(context.operation)) return;
    // A conversation grows with each turn: the same request in it asks something new.
    if (context.body.conversation !== undefined && context.body.conversation !== null) return;
    // Neither a default key nor one asked for: nothing to look up (the usual case), without reading the other directives.
    if (!this.config.defaultKey && !context.headers.has("x-gw-cache-key")) return;
    const directives = cacheDirectivesOf(context.headers, this.config.defaultKey);
    if (!directives.key) return;
    return this.lookUp(context, directives.key, directives);
  }

  transformResponse(context: RequestContext, response: Response): Promise<Response> | Response {
    const plan = this.pending.get(context);
    if (!plan) return response;
    this.pending.delete(context);
    return response.ok ? this.captured(context, plan, response) : response;
  }

  private async lookUp(context: RequestContext, cacheKey: string, directives: CacheDirectives): Promise<HookReply | undefined> {
    const keys = requestKeys(context, cacheKey, this.config);
    const exact = await this.deps.store.findExact(cacheKey, keys.requestHash, Date.now());
    if (exact) return { response: replay({ entry: exact, type: "direct" }), cacheHit: "direct" };
    const semantic = await this.probeSemantic(context, cacheKey, keys);
    if (semantic.reply) return semantic.reply;
    if (directives.noStore) return;
    this.pending.set(context, { cacheKey, keys, ttlSeconds: directives.ttlSeconds ?? this.config.ttlSeconds, embedding: semantic.embedding });
  }

  private async captured(context: RequestContext, plan: PendingStore, response: Response): Promise<Response> {
    const captured = await captureResponse(response, context.stream, this.config.maxEntryBytes, (body) => this.store(context, plan, response, body));
    captured.headers.set("x-gw-cache-id", context.id);
    return captured;
  }

  private async probeSemantic(context: RequestContext, cacheKey: string, keys: RequestKeys): Promise<SemanticProbe> {
    const semantic = this.config.semantic;
    const text = semantic && SEMANTIC.has(context.operation) ? conversationText(context.body) : "";
    if (!semantic || !text) return {};
    const space = semantic.dimensions ? `${semantic.embeddingModel}@${semantic.dimensions}` : semantic.embeddingModel;
    try {
      const vector = await this.deps.embed(text, semantic, context.headers);
      const match = await this.deps.store.findSimilar(cacheKey, keys.paramsHash, space, vector, semantic.threshold, Date.now());
      const reply: HookReply | undefined = match && { response: replay({ ...match, type: "semantic" }), cacheHit: "semantic" };
      return { reply, embedding: { space, vector } };
    } catch (error) {
      this.host.log(`semantic lookup skipped: ${(error as Error).message}`);
      return {};
    }
  }

  private async store(context: RequestContext, plan: PendingStore, response: Response, body: Uint8Array): Promise<void> {
    const target = context.targets[0];
    try {
      const entry: NewCacheEntry = {
        id: context.id,
        cacheKey: plan.cacheKey,
        keys: plan.keys,
        provider: response.headers.get("x-gw-provider") ?? target?.provider ?? "",
        model: response.headers.get("x-gw-model") ?? target?.model ?? "",
        stream: context.stream,
        status: response.status,
        headers: replayableHeaders(response.headers),
        body,
        ttlSeconds: plan.ttlSeconds,
        embedding: plan.embedding,
      };
      await this.deps.store.put(entry, Date.now());
    } catch (error) {
      this.host.log(`response of request ${context.id} not stored: ${(error as Error).message}`);
    }
  }
}
