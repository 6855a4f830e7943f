/**
 * Gemini's wire shapes (generativelanguage v1beta; Vertex speaks the same). Requests are
 * TypeBox schemas because the /genai mount validates them; every object stays open so fields
 * the gateway does not translate (safetySettings, cachedContent...) pass through to Gemini.
 */
import { type Static, Type as t } from "@sinclair/typebox";

const open = { additionalProperties: true } as const;
const OptStr = t.Optional(t.String());
const JsonObject = t.Record(t.String(), t.Unknown());

export const Part = t.Object(
  {
    text: OptStr,
    /** True on a part that carries the model's reasoning rather than its answer. */
    thought: t.Optional(t.Boolean()),
    thoughtSignature: OptStr,
    inlineData: t.Optional(t.Object({ mimeType: t.String(), data: t.String() }, open)),
    fileData: t.Optional(t.Object({ mimeType: OptStr, fileUri: t.String() }, open)),
    functionCall: t.Optional(t.Object({ id: OptStr, name: t.String({ minLength: 1 }), args: t.Optional(JsonObject) }, open)),
    functionResponse: t.Optional(t.Object({ id: OptStr, name: t.String({ minLength: 1 }), response: JsonObject }, open)),
  },
  open,
);
export type Part = Static<typeof Part>;

export const Content = t.Object({ role: OptStr, parts: t.Array(Part) }, open);
export type Content = Static<typeof Content>;

export const FunctionDeclaration = t.Object(
  {
    name: t.String({ minLength: 1 }),
    description: OptStr,
    /** Gemini's OpenAPI-style schema (types written `OBJECT`, `STRING`...). */
    parameters: t.Optional(JsonObject),
    /** A plain JSON Schema, the alternative to `parameters`. */
    parametersJsonSchema: t.Optional(JsonObject),
  },
  open,
);

export const Tool = t.Object({ functionDeclarations: t.Optional(t.Array(FunctionDeclaration)) }, open);
export type Tool = Static<typeof Tool>;

const FunctionCallingMode = t.Union([t.Literal("MODE_UNSPECIFIED"), t.Literal("AUTO"), t.Literal("ANY"), t.Literal("NONE"), t.Literal("VALIDATED")]);

export const ToolConfig = t.Object(
  { functionCallingConfig: t.Optional(t.Object({ mode: t.Optional(FunctionCallingMode), allowedFunctionNames: t.Optional(t.Array(t.String())) }, open)) },
  open,
);
export type ToolConfig = Static<typeof ToolConfig>;

export const ThinkingConfig = t.Object(
  {
    /** Tokens the model may think for: 0 turns thinking off, -1 lets the model decide. */
    thinkingBudget: t.Optional(t.Integer({ minimum: -1 })),
    includeThoughts: t.Optional(t.Boolean()),
    /** Gemini 3's alternative to a budget: `LOW`, `HIGH`... */
    thinkingLevel: OptStr,
  },
  open,
);

export const GenerationConfig = t.Object(
  {
    temperature: t.Optional(t.Number({ minimum: 0 })),
    topP: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
    topK: t.Optional(t.Integer({ minimum: 1 })),
    maxOutputTokens: t.Optional(t.Integer({ minimum: 1 })),
    stopSequences: t.Optional(t.Array(t.String())),
    candidateCount: t.Optional(t.Integer({ minimum: 1 })),
    seed: t.Optional(t.Integer()),
    responseMimeType: OptStr,
    /** OpenAPI-style schema of the JSON answer. */
    responseSchema: t.Optional(JsonObject),
    /** JSON Schema of the JSON answer, the alternative to `responseSchema`. */
    responseJsonSchema: t.Optional(JsonObject),
    thinkingConfig: t.Optional(ThinkingConfig),
  },
  open,
);
export type GenerationConfig = Static<typeof GenerationConfig>;

export const GenerateContentRequest = t.Object(
  {
    contents: t.Array(Content, { minItems: 1 }),
    systemInstruction: t.Optional(Content),
    tools: t.Optional(t.Array(Tool)),
    toolConfig: t.Optional(ToolConfig),
    generationConfig: t.Optional(GenerationConfig),
  },
  open,
);
export type GenerateContentRequest = Static<typeof GenerateContentRequest>;

const EmbedFields = { content: Content, taskType: OptStr, title: OptStr, outputDimensionality: t.Optional(t.Integer({ minimum: 1 })) };

export const EmbedContentRequest = t.Object({ ...EmbedFields, model: OptStr }, open);
export type EmbedContentRequest = Static<typeof EmbedContentRequest>;

export const BatchEmbedContentsRequest = t.Object({ requests: t.Array(t.Object({ ...EmbedFields, model: OptStr }, open), { minItems: 1 }) }, open);
export type BatchEmbedContentsRequest = Static<typeof BatchEmbedContentsRequest>;

/** `contents` alone, or a whole generateContent request to count (the mount requires one of the two). */
export const CountTokensRequest = t.Object(
  { contents: t.Optional(t.Array(Content, { minItems: 1 })), generateContentRequest: t.Optional(GenerateContentRequest) },
  open,
);
export type CountTokensRequest = Static<typeof CountTokensRequest>;

export type GenaiFinishReason =
  | "FINISH_REASON_UNSPECIFIED"
  | "STOP"
  | "MAX_TOKENS"
  | "SAFETY"
  | "RECITATION"
  | "LANGUAGE"
  | "OTHER"
  | "BLOCKLIST"
  | "PROHIBITED_CONTENT"
  | "SPII"
  | "MALFORMED_FUNCTION_CALL"
  | "IMAGE_SAFETY"
  | "UNEXPECTED_TOOL_CALL";

export interface UsageMetadata {
  promptTokenCount?: number;
  /** Tokens of the answer, thoughts excluded. */
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

export interface Candidate {
  content?: { role?: string; parts?: Part[] };
  finishReason?: GenaiFinishReason;
  index?: number;
}

export interface GenerateContentResponse {
  candidates?: Candidate[];
  usageMetadata?: UsageMetadata;
  modelVersion?: string;
  responseId?: string;
  promptFeedback?: { blockReason?: string };
}

export interface ContentEmbedding {
  values: number[];
}

/** embedContent answers `embedding`, batchEmbedContents `embeddings`. */
export interface EmbedResponse {
  embedding?: ContentEmbedding;
  embeddings?: ContentEmbedding[];
}

/** Imagen's `:predict`: the prompt in its one instance, the image settings in `parameters`. */
export const PredictImagesRequest = t.Object({ instances: t.Array(t.Object({ prompt: t.String({ minLength: 1 }) }, open), { minItems: 1, maxItems: 1 }), parameters: t.Optional(t.Object({ sampleCount: t.Optional(t.Integer({ minimum: 1, maximum: 8 })) }, open)) }, open);

/** Veo's `:predictLongRunning`: a prompt, an image to start from or both in its one instance; the video's length and count in `parameters`, which price it. */
export const PredictVideosRequest = t.Object(
  {
    instances: t.Array(t.Object({ prompt: t.Optional(t.String({ minLength: 1 })), image: t.Optional(t.Object({}, open)) }, open), { minItems: 1, maxItems: 1 }),
    parameters: t.Optional(t.Object({ sampleCount: t.Optional(t.Integer({ minimum: 1, maximum: 4 })), durationSeconds: t.Optional(t.Integer({ minimum: 1, maximum: 60 })) }, open)),
  },
  open,
);
