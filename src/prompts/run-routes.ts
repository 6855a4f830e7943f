import { Elysia, t } from "elysia";
import type { Inference } from "../inference/handle";
import { anthropicHandler } from "../inference/mounts/anthropic";
import { openAIHandler } from "../inference/mounts/openai-bodies";
import { chatBody, messagesBody, renderPrompt, responsesBody } from "./run";
import { PromptRunFields } from "./schemas";
import type { PromptStore } from "./store";

const NameParams = t.Object({ name: t.String() });

/**
 * A prompt run through the whole pipeline as the route of its format: `POST /v1/prompts/{name}/chat/completions`
 * as /v1/chat/completions, `.../responses` as /v1/responses, `POST /anthropic/v1/prompts/{name}/messages`
 * as /anthropic/v1/messages.
 */
export function promptRunRoutes(store: PromptStore, inference: Inference) {
  const chat = openAIHandler(inference, undefined);
  const messages = anthropicHandler(inference, undefined);
  return new Elysia({ name: "prompt-runs" })
    .post(
      "/v1/prompts/:name/chat/completions",
      async ({ params, body, request }) => {
        const prompt = await renderPrompt(store, params.name, body);
        return chat("chat", chatBody(prompt), request, { metadata: prompt.metadata });
      },
      {
        params: NameParams,
        body: PromptRunFields,
        detail: { summary: "Run a prompt as a chat completion", description: "Renders the prompt's version (by `label` or `version`, else the newest) with `variables`, appends `messages`, and answers as /v1/chat/completions; any other field overrides the version's parameters." },
      },
    )
    .post(
      "/v1/prompts/:name/responses",
      async ({ params, body, request }) => {
        const prompt = await renderPrompt(store, params.name, body);
        return chat("responses", responsesBody(prompt), request, { metadata: prompt.metadata });
      },
      {
        params: NameParams,
        body: PromptRunFields,
        detail: { summary: "Run a prompt as a response", description: "As /v1/prompts/{name}/chat/completions, answered as /v1/responses: the prompt's messages, then `messages`, then `input`, as input items." },
      },
    )
    .post(
      "/anthropic/v1/prompts/:name/messages",
      async ({ params, body, request }) => {
        const prompt = await renderPrompt(store, params.name, body);
        return messages("chat", messagesBody(prompt), request, { metadata: prompt.metadata });
      },
      {
        params: NameParams,
        body: PromptRunFields,
        detail: { summary: "Run a prompt as an Anthropic message", description: "As /v1/prompts/{name}/chat/completions, answered as /anthropic/v1/messages: the prompt's system messages become `system`." },
      },
    );
}
