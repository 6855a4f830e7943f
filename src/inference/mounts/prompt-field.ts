import { badRequest } from "../../http/errors";
import { isInternal } from "../../http/internal-requests";
import type { Inference } from "../handle";

/** The API a body with a `prompt` field is answered as: the rendered prompt takes that API's shape. */
export type PromptFieldFormat = "chat" | "responses" | "messages";

/** A body's `prompt` field rendered into it (the field gone), and what the log row records of the prompt. */
export interface RenderedPromptField {
  body: Record<string, unknown>;
  metadata: Record<string, string>;
}

/** Renders `{ "prompt": { name, label | version, variables } }` into the body it came in (src/prompts). */
export type PromptField = (body: Record<string, unknown>, format: PromptFieldFormat) => Promise<RenderedPromptField>;

const renderedFor = new WeakMap<Request, Record<string, string>>();

/** OpenAI's Responses API has a `prompt` of its own, a stored prompt's `id`: that one goes to the provider as sent. */
const isProvidersOwn = (prompt: unknown, format: PromptFieldFormat) => format === "responses" && typeof prompt === "object" && prompt !== null && "id" in prompt;

/**
 * An Elysia transform, run before the body is validated: a body naming a prompt has it rendered
 * in, so the route sees (and checks) the rendered request; any other body costs one property check.
 */
export function promptFieldTransform(inference: Inference, format: PromptFieldFormat) {
  return async (context: { body: unknown; request: Request }) => {
    const prompt = (context.body as { prompt?: unknown } | null | undefined)?.prompt;
    if (prompt === undefined || !inference.promptField || isProvidersOwn(prompt, format)) return;
    const rendered = await inference.promptField(context.body as Record<string, unknown>, format);
    context.body = rendered.body;
    renderedFor.set(context.request, rendered.metadata);
  };
}

/** The call options of a request whose body a prompt was rendered into (its log metadata); none for any other. */
export const promptOptionsOf = (request: Request): { metadata: Record<string, string> } | undefined => {
  const metadata = promptMetadataOf(request);
  return metadata && { metadata };
};

/**
 * Where a background run's replay carries the log metadata of the prompt rendered into its body
 * when it was submitted (src/async stores it with the job); heard only on the gateway's own requests.
 */
export const REPLAYED_PROMPT_HEADER = "x-gw-replayed-prompt";

/** The header value a replay of this request carries: its prompt's log metadata, if a prompt was rendered in. */
export function replayedPromptHeader(request: Request): string | undefined {
  const metadata = renderedFor.get(request);
  return metadata && new URLSearchParams(metadata).toString();
}

function replayedPromptOf(request: Request): Record<string, string> | undefined {
  const sent = isInternal(request) ? request.headers.get(REPLAYED_PROMPT_HEADER) : null;
  return sent ? Object.fromEntries(new URLSearchParams(sent)) : undefined;
}

/** The log metadata of the prompt rendered into this request's body, or into the body a background run replays. */
export const promptMetadataOf = (request: Request): Record<string, string> | undefined => renderedFor.get(request) ?? replayedPromptOf(request);

type Given<B, K extends keyof B> = B & { [F in K]-?: Exclude<B[F], undefined> };

/**
 * The body as the route handles it: the fields a `prompt` could have given (the model, the
 * messages) are there by now, rendered in, or else the body needed them itself.
 */
export function requireUnprompted<B extends object, K extends keyof B & string>(body: B, fields: readonly K[]): Given<B, K> {
  for (const field of fields) if (body[field] === undefined) throw badRequest(`${field} is required`, field);
  return body as Given<B, K>;
}
