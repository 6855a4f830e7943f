import { Elysia, t } from "elysia";
import { Type } from "@sinclair/typebox";
import { notFound } from "../../http/errors";
import { fallbacksOf, handleInference, type Inference } from "../handle";
import { modelInPath } from "../model-ref";
import { visibleModels, visibleServedModel } from "../visible-models";
import { withModelFacts } from "../model-facts";
import type { Operation } from "../../upstream/operations";
import { anthropicObjectRoutes } from "./anthropic-objects";
import { promptFieldTransform, promptOptionsOf, requireUnprompted } from "./prompt-field";
import { PromptReference, unlessPrompted } from "./prompt-reference";

const open = { additionalProperties: true } as const;
const Block = t.Object({ type: t.String() }, open);
const Content = t.Union([t.String(), t.Array(Block)]);
// Roles are not checked here: the same format relays any (Claude Code sends `system` mid-conversation);
// a translation refuses the roles it cannot carry, naming the message.
const Message = t.Object({ role: t.String(), content: Content }, open);
const gatewayFields = {
  model: t.String({ minLength: 1 }),
  fallbacks: t.Optional(t.Array(t.String({ minLength: 1 }))),
};
const Messages = t.Array(Message);
const conversationFields = {
  ...gatewayFields,
  messages: Messages,
  system: t.Optional(t.Union([t.String(), t.Array(Block)])),
};

/** A stored `prompt` may give the model, the messages and max_tokens. */
const MessagesBody = t.Object(
  {
    ...conversationFields,
    model: unlessPrompted(gatewayFields.model),
    messages: unlessPrompted(Messages),
    max_tokens: unlessPrompted(Type.Integer({ minimum: 1 })),
    stream: t.Optional(t.Boolean()),
    temperature: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    top_p: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    prompt: t.Optional(PromptReference),
  },
  open,
);
const MESSAGES_FIELDS_A_PROMPT_GIVES = ["model", "messages", "max_tokens"] as const;
const CountTokensBody = t.Object(conversationFields, open);
const CompleteBody = t.Object({ ...gatewayFields, prompt: t.String(), max_tokens_to_sample: Type.Integer({ minimum: 1 }), stream: t.Optional(t.Boolean()) }, open);
/** Extended endpoints (batches...) may name no top-level model: batch requests carry their own. */
const ExtendedBody = t.Object({ model: t.Optional(t.String({ minLength: 1 })), fallbacks: gatewayFields.fallbacks }, open);

type ClientBody = { model?: string; fallbacks?: string[]; stream?: boolean } & Record<string, unknown>;

/** The model an extended request routes by: its own, or the first batch request's. */
function routingModelOf(body: ClientBody): string {
  const requests = body.requests as Array<{ params?: { model?: unknown } }> | undefined;
  const batchModel = Array.isArray(requests) ? requests[0]?.params?.model : undefined;
  return body.model ?? (typeof batchModel === "string" ? batchModel : "");
}

interface AnthropicCallOptions {
  /** An extended endpoint's routing model and sub-path. */
  extended?: { model: string; endpoint: string };
  /** Metadata for the log row only (a rendered prompt's name and version). */
  metadata?: Record<string, string>;
}

/** One inference call in Anthropic format; `fallbacks` come from the body or the `x-gw-fallbacks` header. */
const NO_OPTIONS: AnthropicCallOptions = Object.freeze({});

export function anthropicHandler(inference: Inference, mountProvider: string | undefined) {
  return (operation: Operation, { fallbacks, ...body }: ClientBody, request: Request, { extended, metadata }: AnthropicCallOptions = NO_OPTIONS) =>
    handleInference(inference, {
      operation,
      format: "anthropic",
      body,
      model: extended?.model ?? body.model ?? "",
      fallbacks: fallbacksOf({ fallbacks }, request.headers),
      stream: (operation === "chat" || operation === "text_completion") && body.stream === true,
      request,
      mountProvider,
      endpoint: extended?.endpoint,
      metadata,
    });
}

/**
 * POST {prefix}/v1/messages (JSON and SSE), /v1/messages/count_tokens and the wildcard
 * /v1/messages/{path} (spec 4.16). `mountProvider` answers bare model names. Credentials the
 * Anthropic SDK sends (`x-api-key`, `Authorization: Bearer`) are accepted and never forwarded.
 */
export function anthropicMessagesMount(prefix: string, inference: Inference, mountProvider?: string) {
  const handle = anthropicHandler(inference, mountProvider);
  return new Elysia({ name: `anthropic-messages-mount:${prefix}`, prefix: `${prefix}/v1` })
    .post("/messages", ({ body, request }) => handle("chat", requireUnprompted(body, MESSAGES_FIELDS_A_PROMPT_GIVES), request, promptOptionsOf(request)), {
      transform: promptFieldTransform(inference, "messages"),
      body: MessagesBody,
    })
    .post("/messages/count_tokens", ({ body, request }) => handle("count_tokens", body, request), { body: CountTokensBody })
    .post("/messages/*", ({ body, params, request }) => handle("invoke", body, request, { extended: { model: routingModelOf(body), endpoint: params["*"] } }), { body: ExtendedBody });
}

/** Every model the configured keys name, as `provider/model`, in Anthropic's list shape, with what the price catalogue knows of it. */
function listModels(inference: Inference, headers: Headers) {
  const listed = visibleModels(inference, headers);
  const data = listed.map(({ id, model, provider }) => withModelFacts(inference, provider, model, { type: "model", id, display_name: id, created_at: new Date(0).toISOString() }));
  return { data, has_more: false, first_id: listed[0]?.id ?? null, last_id: listed.at(-1)?.id ?? null };
}

/** The Anthropic-format surface: messages and its extended endpoints, legacy /v1/complete, /v1/models, the batches and files Anthropic keeps. */
export function anthropicMount(prefix: string, inference: Inference, mountProvider?: string) {
  const handle = anthropicHandler(inference, mountProvider);
  const legacy = new Elysia({ prefix: `${prefix}/v1` })
    .post("/complete", ({ body, request }) => handle("text_completion", body, request), { body: CompleteBody })
    .get("/models", ({ request }) => listModels(inference, request.headers))
    .get("/models/*", ({ params, request }) => {
      const model = modelInPath(params["*"]);
      if (!visibleServedModel(inference, request.headers, model, mountProvider)) throw notFound(`model: ${model}`, "caller_model_not_found");
      return { type: "model", id: model, display_name: model, created_at: new Date(0).toISOString() };
    });
  return new Elysia({ name: `anthropic-mount:${prefix}` }).use(anthropicMessagesMount(prefix, inference, mountProvider)).use(legacy).use(anthropicObjectRoutes(prefix, inference, mountProvider));
}
