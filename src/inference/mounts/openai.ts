import { Elysia, t } from "elysia";
import { badRequest } from "../../http/errors";
import { explicitModels } from "../../provider-registry/model-filter";
import type { ProviderStore } from "../../provider-registry/store";
import { type Dispatched, dispatch } from "../dispatch";
import { resolveModelRef } from "../model-ref";
import type { Operation } from "../operations";

const open = { additionalProperties: true } as const;
const gatewayFields = {
  model: t.String({ minLength: 1 }),
  fallbacks: t.Optional(t.Array(t.String({ minLength: 1 }))),
  stream: t.Optional(t.Boolean()),
};

const ChatCompletionBody = t.Object({ ...gatewayFields, messages: t.Array(t.Object({ role: t.String() }, open), { minItems: 1 }) }, open);
const CompletionBody = t.Object({ ...gatewayFields, prompt: t.Union([t.String(), t.Array(t.Unknown())]) }, open);
const EmbeddingBody = t.Object({ ...gatewayFields, input: t.Union([t.String(), t.Array(t.Unknown(), { minItems: 1 })]) }, open);
const ResponsesBody = t.Object({ ...gatewayFields, input: t.Optional(t.Unknown()) }, open);

type GatewayBody = { model: string; fallbacks?: string[]; stream?: boolean } & Record<string, unknown>;

function toClientResponse(result: Dispatched): Response {
  const headers: Record<string, string> = { "x-gw-provider": result.target.provider, "x-gw-model": result.target.model };
  if ("stream" in result) {
    headers["content-type"] = result.headers.get("content-type") ?? "text/event-stream";
    headers["cache-control"] = "no-cache";
    return new Response(result.stream, { status: result.status, headers });
  }
  headers["content-type"] = result.headers.get("content-type") ?? "application/json";
  return new Response(result.body, { status: result.status, headers });
}

/** The OpenAI-format surface (`/v1`, and the same under the provider and framework mounts). */
export function openAIMount(prefix: string, store: ProviderStore) {
  async function handle(operation: Operation, body: GatewayBody, request: Request): Promise<Response> {
    const { fallbacks = [], ...upstreamBody } = body;
    const targets = [resolveModelRef(body.model, store, "model"), ...fallbacks.map((fallback, index) => resolveModelRef(fallback, store, `fallbacks[${index}]`))];
    const pinnedKeyId = request.headers.get("x-gw-api-key-id") ?? undefined;
    if (pinnedKeyId && !targets.some((target) => store.get(target.provider)?.keys.some((key) => key.id === pinnedKeyId))) {
      throw badRequest(`x-gw-api-key-id '${pinnedKeyId}' is not a key of the requested providers`, "x-gw-api-key-id", "caller_key_not_found");
    }
    const stream = operation !== "embedding" && body.stream === true;
    return toClientResponse(await dispatch(store, { operation, body: upstreamBody, stream, targets, pinnedKeyId, signal: request.signal }));
  }

  const listModels = () => ({
    object: "list",
    data: store.list().flatMap((provider) => {
      const names = new Set(provider.keys.flatMap((key) => [...explicitModels(key.config.models), ...Object.keys(key.config.aliases ?? {})]));
      return [...names].map((model) => ({ id: `${provider.name}/${model}`, object: "model", created: 0, owned_by: provider.name }));
    }),
  });

  return new Elysia({ name: `openai-mount:${prefix}`, prefix })
    .get("/models", listModels)
    .post("/chat/completions", ({ body, request }) => handle("chat", body, request), { body: ChatCompletionBody })
    .post("/completions", ({ body, request }) => handle("text_completion", body, request), { body: CompletionBody })
    .post("/embeddings", ({ body, request }) => handle("embedding", body, request), { body: EmbeddingBody })
    .post("/responses", ({ body, request }) => handle("responses", body, request), { body: ResponsesBody });
}
