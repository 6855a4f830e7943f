import { Elysia, t } from "elysia";
import { badRequest } from "../http/errors";
import { replies, sentReplies } from "../http/replies";
import { fallbacksOf, handleInference, type Inference } from "../inference/handle";
import { chatCompletionReply } from "../inference/mounts/chat-completion-reply";
import { CHAT_FIELDS_A_PROMPT_GIVES, PromptedChatBody } from "../inference/mounts/openai-bodies";
import { promptFieldTransform, promptMetadataOf, requireUnprompted } from "../inference/mounts/prompt-field";
import { ModelFacts, withModelFacts } from "../inference/model-facts";
import { configuredModels } from "../provider-registry/model-listing";
import type { ServedModel } from "../inference/model-ref";

export interface PlaygroundDeps {
  inference: Inference;
  /** Whether a virtual key of this id exists. */
  keyExists(id: string): boolean;
  /** Which models a request run as this virtual key may use. */
  modelsUsableBy(virtualKeyId: string): (model: ServedModel) => boolean;
}

/** The header a run's reply names its request log row in. */
export const REQUEST_ID_HEADER = "x-gw-request-id";

const RunQuery = t.Object({
  virtual_key_id: t.Optional(t.String({ minLength: 1, description: "The virtual key the call runs as: its limits, budgets, routing and access apply. None: the call runs as a client without a key." })),
});

const PlaygroundModels = t.Object({
  models: t.Array(
    t.Object({ id: t.String({ description: "`provider/model`, as a client names it." }), provider: t.String(), model: t.String(), ...ModelFacts.properties }, { description: "With the context window and list prices where the price catalogue knows them, as `/v1/models` shows them." }),
  ),
});

function knownKey(deps: PlaygroundDeps, id: string | undefined) {
  if (id !== undefined && !deps.keyExists(id)) throw badRequest(`virtual key '${id}' does not exist`, "virtual_key_id");
  return id;
}

/**
 * The dashboard's playground: a chat completion run through the same pipeline as
 * `/v1/chat/completions`, as a chosen virtual key, without the key's secret ever leaving the
 * gateway. The run is an ordinary request log row, named in the reply's `x-gw-request-id`.
 */
export const playgroundRoutes = (deps: PlaygroundDeps) =>
  new Elysia({ name: "playground", prefix: "/api/playground" })
    .get(
      "/models",
      ({ query }) => {
        const id = knownKey(deps, query.virtual_key_id);
        const usable = id ? deps.modelsUsableBy(id) : () => true;
        const models = configuredModels(deps.inference.providers).filter(({ provider, model, keyIds }) => usable({ provider: provider.name, model, keyIds }));
        return { models: models.map(({ id, provider, model }) => withModelFacts(deps.inference, provider, model, { id, provider: provider.name, model })) };
      },
      { query: RunQuery, ...replies({ 200: PlaygroundModels }, { summary: "Models to try", description: "The configured models a call run as the virtual key may use (every one without a key), each with its context window and list prices where known." }) },
    )
    .post(
      "/chat/completions",
      async ({ body: sent, query, request: received }) => {
        const { fallbacks, ...body } = requireUnprompted(sent, CHAT_FIELDS_A_PROMPT_GIVES);
        const actingVirtualKeyId = knownKey(deps, query.virtual_key_id);
        const requestId = Bun.randomUUIDv7();
        // A fresh request: the operator's session cookie and headers stay out of the pipeline, its hooks and its log.
        const request = new Request("http://gateway.internal/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        const reply = await handleInference(deps.inference, {
          operation: "chat",
          format: "openai",
          body,
          model: body.model,
          fallbacks: fallbacksOf({ fallbacks }, request.headers),
          stream: body.stream === true,
          request,
          requestId,
          actingVirtualKeyId,
          metadata: promptMetadataOf(received),
        });
        const headers = new Headers(reply.headers);
        headers.set(REQUEST_ID_HEADER, requestId);
        return new Response(reply.body, { status: reply.status, headers });
      },
      {
        transform: promptFieldTransform(deps.inference, "chat"),
        body: PromptedChatBody,
        query: RunQuery,
        ...sentReplies({ 200: chatCompletionReply }, { summary: "Run a chat completion as a virtual key", description: "`/v1/chat/completions` for a signed-in operator: the body is that route's, the reply too (a stream when `stream` is true), with the request log row's id in `x-gw-request-id`." }),
      },
    );
