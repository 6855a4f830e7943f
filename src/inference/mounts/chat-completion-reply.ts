import { Type as t } from "@sinclair/typebox";
import type { SentReply } from "../../http/replies";

/**
 * What POST /v1/chat/completions answers, for the document: OpenAI's chat completion, whatever
 * provider served it. Only its outline is described here; the reply passes through the pipeline
 * as a Response, so it is shown, not checked.
 */

const open = { additionalProperties: true } as const;

const ChatCompletion = t.Object(
  {
    id: t.String(),
    object: t.Literal("chat.completion"),
    created: t.Integer({ description: "Unix seconds." }),
    model: t.String({ description: "The model the provider ran." }),
    choices: t.Array(
      t.Object(
        {
          index: t.Integer(),
          message: t.Object({ role: t.Literal("assistant"), content: t.Union([t.String(), t.Null()]), refusal: t.Optional(t.Union([t.String(), t.Null()])) }, open),
          logprobs: t.Optional(t.Union([t.Object({}, open), t.Null()])),
          finish_reason: t.String({ description: "`stop`, `length`, `tool_calls`, `content_filter`." }),
        },
        open,
      ),
    ),
    usage: t.Optional(t.Object({ prompt_tokens: t.Integer(), completion_tokens: t.Integer(), total_tokens: t.Integer() }, open)),
  },
  { ...open, title: "ChatCompletion" },
);

export const chatCompletionReply: SentReply = {
  description: "OpenAI's chat completion, whichever provider served it. With `stream: true`, server-sent `chat.completion.chunk` events ending with `data: [DONE]` instead.",
  mediaType: "application/json",
  schema: ChatCompletion,
  example: {
    id: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    object: "chat.completion",
    created: 1796669700,
    model: "gpt-4o-mini-2024-07-18",
    choices: [{ index: 0, message: { role: "assistant", content: "Bonjour !", refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 14, completion_tokens: 9, total_tokens: 23 },
  },
};

/** A request body the document shows: a model named `provider/model`, with a fallback. */
export const chatCompletionRequestExample = {
  model: "openai/gpt-4o-mini",
  messages: [
    { role: "system", content: "You answer in French." },
    { role: "user", content: "Say hello." },
  ],
  fallbacks: ["anthropic/claude-haiku-4-5"],
};
