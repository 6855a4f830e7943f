import { type Static, Type as t } from "@sinclair/typebox";

/**
 * Cohere v2 request bodies as the /cohere mount validates them. Every object stays open so
 * fields Cohere adds later still pass through to a Cohere upstream untouched.
 */
const open = { additionalProperties: true } as const;

const gatewayFields = {
  model: t.String({ minLength: 1 }),
  fallbacks: t.Optional(t.Array(t.String({ minLength: 1 }))),
};

const ContentPart = t.Object(
  {
    type: t.String({ minLength: 1 }),
    text: t.Optional(t.String()),
    thinking: t.Optional(t.String()),
    image_url: t.Optional(t.Object({ url: t.String({ minLength: 1 }), detail: t.Optional(t.String()) }, open)),
    document: t.Optional(t.Object({ id: t.Optional(t.String()), data: t.Record(t.String(), t.Unknown()) }, open)),
  },
  open,
);

const ToolCall = t.Object(
  {
    id: t.String({ minLength: 1 }),
    type: t.Literal("function"),
    function: t.Object({ name: t.String({ minLength: 1 }), arguments: t.String() }, open),
  },
  open,
);

const Message = t.Object(
  {
    role: t.Union([t.Literal("system"), t.Literal("user"), t.Literal("assistant"), t.Literal("tool")]),
    content: t.Optional(t.Union([t.String(), t.Array(ContentPart)])),
    tool_call_id: t.Optional(t.String({ minLength: 1 })),
    tool_calls: t.Optional(t.Array(ToolCall)),
    tool_plan: t.Optional(t.String()),
    citations: t.Optional(t.Array(t.Unknown())),
  },
  open,
);

const Tool = t.Object(
  {
    type: t.Literal("function"),
    function: t.Object(
      { name: t.String({ minLength: 1 }), description: t.Optional(t.String()), parameters: t.Optional(t.Record(t.String(), t.Unknown())) },
      open,
    ),
  },
  open,
);

const Document = t.Union([t.String(), t.Object({ id: t.Optional(t.String()), data: t.Record(t.String(), t.Unknown()) }, open)]);

export const CohereChatBody = t.Object(
  {
    ...gatewayFields,
    messages: t.Array(Message, { minItems: 1 }),
    stream: t.Optional(t.Boolean()),
    tools: t.Optional(t.Array(Tool)),
    tool_choice: t.Optional(t.Union([t.Literal("REQUIRED"), t.Literal("NONE")])),
    strict_tools: t.Optional(t.Boolean()),
    documents: t.Optional(t.Array(Document)),
    citation_options: t.Optional(t.Object({ mode: t.Optional(t.String()) }, open)),
    response_format: t.Optional(
      t.Object({ type: t.Union([t.Literal("text"), t.Literal("json_object")]), json_schema: t.Optional(t.Record(t.String(), t.Unknown())) }, open),
    ),
    max_tokens: t.Optional(t.Integer({ minimum: 1 })),
    stop_sequences: t.Optional(t.Array(t.String())),
    temperature: t.Optional(t.Number({ minimum: 0 })),
    seed: t.Optional(t.Integer()),
    frequency_penalty: t.Optional(t.Number()),
    presence_penalty: t.Optional(t.Number()),
    k: t.Optional(t.Integer({ minimum: 0 })),
    p: t.Optional(t.Number()),
    thinking: t.Optional(t.Object({ type: t.Union([t.Literal("enabled"), t.Literal("disabled")]), token_budget: t.Optional(t.Integer({ minimum: 1 })) }, open)),
  },
  open,
);

export const CohereEmbedBody = t.Object(
  {
    ...gatewayFields,
    texts: t.Optional(t.Array(t.String(), { minItems: 1 })),
    images: t.Optional(t.Array(t.String(), { minItems: 1 })),
    inputs: t.Optional(t.Array(t.Unknown(), { minItems: 1 })),
    input_type: t.Optional(t.String({ minLength: 1 })),
    embedding_types: t.Optional(t.Array(t.String({ minLength: 1 }), { minItems: 1 })),
    output_dimension: t.Optional(t.Integer({ minimum: 1 })),
    truncate: t.Optional(t.String()),
  },
  open,
);

export const CohereRerankBody = t.Object(
  {
    ...gatewayFields,
    query: t.String({ minLength: 1 }),
    documents: t.Array(t.Union([t.String(), t.Object({ text: t.String() }, open)]), { minItems: 1 }),
    top_n: t.Optional(t.Integer({ minimum: 1 })),
    max_tokens_per_doc: t.Optional(t.Integer({ minimum: 1 })),
  },
  open,
);

export type CohereChatRequest = Static<typeof CohereChatBody>;
export type CohereMessage = Static<typeof Message>;
export type CohereContentPart = Static<typeof ContentPart>;
export type CohereTool = Static<typeof Tool>;
export type CohereDocument = Static<typeof Document>;
export type CohereEmbedRequest = Static<typeof CohereEmbedBody>;
export type CohereRerankRequest = Static<typeof CohereRerankBody>;
