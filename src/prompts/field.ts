import { Value } from "@sinclair/typebox/value";
import { badRequest, GatewayError } from "../http/errors";
import type { PromptField, PromptFieldFormat } from "../inference/mounts/prompt-field";
import { PromptReference } from "../inference/mounts/prompt-reference";
import { chatBody, messagesBody, type RenderedPrompt, renderPrompt, responsesBody } from "./run";
import type { PromptStore } from "./store";

const BODIES: Record<PromptFieldFormat, (prompt: RenderedPrompt) => Record<string, unknown>> = { chat: chatBody, responses: responsesBody, messages: messagesBody };

/** The fields of a run that sit inside `prompt` in a body, and are named there in errors. */
const isPromptParam = (param: string | undefined) => param === "name" || param === "label" || param === "version" || param?.startsWith("variables.");

function checkedReference(prompt: unknown) {
  const error = Value.Errors(PromptReference, prompt).First();
  if (!error) return prompt as typeof PromptReference.static;
  const param = ["prompt", ...error.path.split("/").filter(Boolean)].join(".");
  throw badRequest(`${param}: ${error.message}`, param);
}

/** A run's mistake about the prompt itself (its name, version, variables) names the field under `prompt`. */
function underPrompt(error: unknown): never {
  if (error instanceof GatewayError && isPromptParam(error.param)) throw badRequest(error.message, `prompt.${error.param}`);
  throw error;
}

/**
 * `{ "prompt": { name, label | version, variables } }` on /v1/chat/completions, /v1/responses and
 * /anthropic/v1/messages: the prompt rendered as a run of it would be, the body's own fields its
 * turns (`messages`) and overrides, the `prompt` field gone before the upstream.
 */
export function promptField(store: PromptStore): PromptField {
  return async ({ prompt, messages, ...rest }, format) => {
    const reference = checkedReference(prompt);
    if (messages !== undefined && !Array.isArray(messages)) throw badRequest("messages must be an array", "messages");
    const run = { ...rest, variables: reference.variables, label: reference.label, version: reference.version, messages: messages as Array<Record<string, unknown>> | undefined };
    const rendered = await renderPrompt(store, reference.name, run).catch(underPrompt);
    return { body: BODIES[format](rendered), metadata: rendered.metadata };
  };
}
