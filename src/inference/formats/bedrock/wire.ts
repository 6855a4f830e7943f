import { type Static, Type as t } from "@sinclair/typebox";

/**
 * Bedrock's Converse API as it travels in JSON (blobs as base64 strings). Objects stay open:
 * fields the gateway does not translate still pass through to Bedrock untouched.
 */
const open = { additionalProperties: true } as const;

const Bytes = t.Object({ bytes: t.String() }, open);
const CachePoint = t.Object({ type: t.Literal("default") });

const ImageBlock = t.Object({ format: t.String(), source: Bytes }, open);
const DocumentBlock = t.Object({ format: t.String(), name: t.String(), source: Bytes }, open);

const ToolResultContent = t.Object(
  { text: t.Optional(t.String()), json: t.Optional(t.Unknown()), image: t.Optional(ImageBlock), document: t.Optional(DocumentBlock) },
  open,
);

export const ReasoningContent = t.Object(
  {
    reasoningText: t.Optional(t.Object({ text: t.String(), signature: t.Optional(t.String()) })),
    /** Base64 of the encrypted reasoning the model would not show. */
    redactedContent: t.Optional(t.String()),
  },
  open,
);

/** Exactly one member is set in a real block; unknown kinds (guardContent, video...) pass through. */
export const ContentBlock = t.Object(
  {
    text: t.Optional(t.String()),
    image: t.Optional(ImageBlock),
    document: t.Optional(DocumentBlock),
    toolUse: t.Optional(t.Object({ toolUseId: t.String({ minLength: 1 }), name: t.String({ minLength: 1 }), input: t.Unknown() }, open)),
    toolResult: t.Optional(
      t.Object({ toolUseId: t.String({ minLength: 1 }), content: t.Array(ToolResultContent), status: t.Optional(t.Union([t.Literal("success"), t.Literal("error")])) }, open),
    ),
    reasoningContent: t.Optional(ReasoningContent),
    cachePoint: t.Optional(CachePoint),
  },
  open,
);

export const ConverseMessage = t.Object({ role: t.Union([t.Literal("user"), t.Literal("assistant")]), content: t.Array(ContentBlock) }, open);

const SystemBlock = t.Object({ text: t.Optional(t.String()), cachePoint: t.Optional(CachePoint) }, open);

const InferenceConfig = t.Object(
  {
    maxTokens: t.Optional(t.Integer({ minimum: 1 })),
    temperature: t.Optional(t.Number({ minimum: 0 })),
    topP: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    stopSequences: t.Optional(t.Array(t.String())),
  },
  open,
);

const ToolSpec = t.Object(
  { name: t.String({ minLength: 1 }), description: t.Optional(t.String()), inputSchema: t.Object({ json: t.Record(t.String(), t.Unknown()) }, open) },
  open,
);

const ToolChoice = t.Object(
  { auto: t.Optional(t.Object({})), any: t.Optional(t.Object({})), tool: t.Optional(t.Object({ name: t.String({ minLength: 1 }) })) },
  open,
);

const ToolConfig = t.Object({ tools: t.Array(t.Object({ toolSpec: t.Optional(ToolSpec), cachePoint: t.Optional(CachePoint) }, open)), toolChoice: t.Optional(ToolChoice) }, open);

/** The body of POST /model/{modelId}/converse and /converse-stream (the model is in the path). */
export const ConverseRequest = t.Object(
  {
    messages: t.Array(ConverseMessage, { minItems: 1 }),
    system: t.Optional(t.Array(SystemBlock)),
    inferenceConfig: t.Optional(InferenceConfig),
    toolConfig: t.Optional(ToolConfig),
    /** Model-specific fields Bedrock forwards to the model (Anthropic's `thinking`, `top_k`). */
    additionalModelRequestFields: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  open,
);

export const StopReason = t.Union([
  t.Literal("end_turn"),
  t.Literal("tool_use"),
  t.Literal("max_tokens"),
  t.Literal("stop_sequence"),
  t.Literal("guardrail_intervened"),
  t.Literal("content_filtered"),
  t.Literal("malformed_model_output"),
  t.Literal("malformed_tool_use"),
  t.Literal("model_context_window_exceeded"),
]);

export const TokenUsage = t.Object({
  inputTokens: t.Integer(),
  outputTokens: t.Integer(),
  totalTokens: t.Integer(),
  cacheReadInputTokens: t.Optional(t.Integer()),
  cacheWriteInputTokens: t.Optional(t.Integer()),
});

export const ConverseResponse = t.Object(
  {
    output: t.Object({ message: ConverseMessage }),
    stopReason: StopReason,
    usage: TokenUsage,
    metrics: t.Optional(t.Object({ latencyMs: t.Number() })),
    additionalModelResponseFields: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  open,
);

export type ContentBlock = Static<typeof ContentBlock>;
export type ReasoningContent = Static<typeof ReasoningContent>;
export type ConverseMessage = Static<typeof ConverseMessage>;
export type ConverseRequest = Static<typeof ConverseRequest>;
export type ConverseResponse = Static<typeof ConverseResponse>;
export type StopReason = Static<typeof StopReason>;
export type TokenUsage = Static<typeof TokenUsage>;
export type ToolSpec = Static<typeof ToolSpec>;

/** ConverseStream event payloads, named by each message's `:event-type` header. */
export interface ConverseStreamEvents {
  messageStart: { role: "assistant" };
  contentBlockStart: { contentBlockIndex: number; start: { toolUse?: { toolUseId: string; name: string } } };
  contentBlockDelta: {
    contentBlockIndex: number;
    delta: { text?: string; toolUse?: { input: string }; reasoningContent?: { text?: string; signature?: string; redactedContent?: string } };
  };
  contentBlockStop: { contentBlockIndex: number };
  messageStop: { stopReason: StopReason; additionalModelResponseFields?: Record<string, unknown> };
  metadata: { usage: TokenUsage; metrics: { latencyMs: number } };
}
