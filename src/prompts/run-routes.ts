import { Elysia, t } from "elysia";
import type { Inference } from "../inference/handle";
import { openAIHandler } from "../inference/mounts/openai-bodies";
import { renderRun } from "./run";
import { PromptRunFields } from "./schemas";
import type { PromptStore } from "./store";

const NameParams = t.Object({ name: t.String() });

/** `POST /v1/prompts/{name}/chat/completions`: the prompt rendered into a chat request, run through the whole pipeline as /v1/chat/completions. */
export function promptRunRoutes(store: PromptStore, inference: Inference) {
  const handle = openAIHandler(inference, undefined);
  return new Elysia({ name: "prompt-runs", prefix: "/v1/prompts" }).post(
    "/:name/chat/completions",
    async ({ params, body, request }) => {
      const run = await renderRun(store, params.name, body);
      return handle("chat", run.body, request, { metadata: run.metadata });
    },
    { params: NameParams, body: PromptRunFields, detail: { summary: "Run a prompt as a chat completion", description: "Renders the prompt's version (by `label` or `version`, else the newest) with `variables`, appends `messages`, and answers as /v1/chat/completions; any other field overrides the version's parameters." } },
  );
}
