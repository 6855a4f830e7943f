/** The bodies of the OpenAI-format routes, as TypeBox validates them, and the handler they share. */
import { t } from "elysia";
import { Type } from "@sinclair/typebox";
import type { Usage } from "../canonical";
import { handleInference, headerFallbacks, type Inference } from "../handle";
import type { Operation } from "../../upstream/operations";
import { chatCompletionRequestExample } from "./chat-completion-reply";
import { PromptReference, unlessPrompted } from "./prompt-reference";

const open = { additionalProperties: true } as const;
const gatewayFields = {
  model: t.String({ minLength: 1 }),
  fallbacks: t.Optional(t.Array(t.String({ minLength: 1 }))),
  stream: t.Optional(t.Boolean()),
};

const ChatMessages = t.Array(t.Object({ role: t.String() }, open), { minItems: 1 });
export const ChatCompletionBody = t.Object({ ...gatewayFields, messages: ChatMessages }, { ...open, examples: [chatCompletionRequestExample] });
/** /v1/chat/completions and the playground: a stored `prompt` may give the model and the messages. */
export const PromptedChatBody = t.Object(
  { ...gatewayFields, model: unlessPrompted(gatewayFields.model), messages: unlessPrompted(ChatMessages), prompt: t.Optional(PromptReference) },
  { ...open, examples: [chatCompletionRequestExample] },
);
export const CHAT_FIELDS_A_PROMPT_GIVES = ["model", "messages"] as const;
export const CompletionBody = t.Object({ ...gatewayFields, prompt: t.Union([t.String(), t.Array(t.Unknown())]) }, open);
export const EmbeddingBody = t.Object({ ...gatewayFields, input: t.Union([t.String(), t.Array(t.Unknown(), { minItems: 1 })]) }, open);
export const ResponsesBody = t.Object({ ...gatewayFields, input: t.Optional(t.Unknown()) }, open);
/** OpenAI's own stored prompt, by its `id`: the provider's to render, sent as is. */
const OpenAIStoredPrompt = t.Object({ id: t.String() }, { ...open, description: "OpenAI's stored prompt, by its `id`: sent to the provider as is." });
/** /v1/responses: a stored `prompt` may give the model and the input. */
export const PromptedResponsesBody = t.Object({ ...ResponsesBody.properties, model: unlessPrompted(gatewayFields.model), prompt: t.Optional(t.Union([PromptReference, OpenAIStoredPrompt])) }, open);
export const RESPONSES_FIELDS_A_PROMPT_GIVES = ["model"] as const;
export const SpeechBody = t.Object({ ...gatewayFields, input: t.String({ minLength: 1 }), voice: t.Union([t.String({ minLength: 1 }), t.Object({ id: t.String() }, open)]) }, open);
export const ImageBody = t.Object({ ...gatewayFields, prompt: t.String({ minLength: 1 }) }, open);
export const RerankBody = t.Object({ ...gatewayFields, query: t.String(), documents: t.Array(t.Unknown(), { minItems: 1 }), top_n: t.Optional(Type.Integer({ minimum: 1 })) }, open);
/** Multipart: form fields are strings, the audio (or the images) files. */
const formFields = { model: t.String({ minLength: 1 }), fallbacks: t.Optional(t.Union([t.String(), t.Array(t.String())])) };
export const TranscriptionForm = t.Object({ ...formFields, file: t.File(), stream: t.Optional(t.String()) }, open);
export const TranslationForm = t.Object({ ...formFields, file: t.File() }, open);
/** The images to edit come as `image` or `image[]`, one file or several, as the SDKs send them; the provider checks them. */
export const ImageEditForm = t.Object({ ...formFields, prompt: t.String({ minLength: 1 }), stream: t.Optional(t.String()) }, open);
/** OpenAI's API picks its moderation model when none is named; the gateway names that one. */
export const ModerationBody = t.Object({ ...gatewayFields, model: t.Optional(t.String({ minLength: 1 })), input: t.Union([t.String(), t.Array(t.Unknown(), { minItems: 1 })]) }, open);
export const DEFAULT_MODERATION_MODEL = "omni-moderation-latest";

export type OpenAIBody = { model: string; fallbacks?: string[] | string; stream?: boolean | string } & Record<string, unknown>;

export interface CallOptions {
  stream?: boolean;
  usage?: Usage;
  /** Metadata for the log row only (a rendered prompt's name and version). */
  metadata?: Record<string, string>;
}

const NO_OPTIONS: CallOptions = Object.freeze({});

/** Runs an OpenAI-format call through the pipeline: the body's `fallbacks` (or the header's) come off, the model stays. */
export function openAIHandler(inference: Inference, mountProvider: string | undefined) {
  return (operation: Operation, sent: OpenAIBody, request: Request, options: CallOptions = NO_OPTIONS) => {
    const { fallbacks } = sent;
    const body = fallbacks === undefined ? sent : withoutFallbacks(sent);
    return handleInference(inference, {
      operation,
      format: "openai",
      body,
      model: body.model,
      fallbacks: typeof fallbacks === "string" ? [fallbacks] : (fallbacks ?? headerFallbacks(request.headers)),
      stream: options.stream ?? (operation !== "embedding" && body.stream === true),
      request,
      mountProvider,
      usage: options.usage,
      metadata: options.metadata,
    });
  };
}

/** The body as the provider gets it: a copy only when it names fallbacks, which are the gateway's. */
function withoutFallbacks({ fallbacks: _, ...body }: OpenAIBody): OpenAIBody {
  return body;
}
