import { badRequest } from "../../http/errors";
import { isInternal } from "../../http/internal-requests";
import type { StoredResponses } from "../../responses";
import { type BackgroundResponses, unfinishedResponse } from "../../responses/background-view";
import { conversationIdOf } from "../../responses/chain";
import { responseIdFor } from "../../responses/ids";
import { answersResponsesItself, type Dispatched } from "../dispatch";
import type { Inference } from "../handle";
import { resolvedModelRef } from "../model-ref";
import { keptByGateway, type OperationHandler } from "../operation-handlers";

/**
 * The body the gateway runs in the background for a Responses call with `background: true`, or
 * undefined when the call goes on as it came. Providers with a Responses API (OpenAI's) run it
 * themselves; for the rest the gateway does, as an async job, unless the call streams (its stream
 * is the answer). A call continuing a conversation the gateway keeps is the gateway's to run on
 * every provider, since its run adds the turn; the provider then answers it in the foreground.
 * Like `POST /v1/async/responses`, the job's replay (the same call, in the foreground) is the call
 * that is governed, logged and billed.
 */
export function backgroundRunOf(inference: Inference, request: Request, body: Record<string, unknown>, mountProvider: string | undefined): Record<string, unknown> | undefined {
  if (body.background !== true || body.stream === true || !inference.background || isInternal(request) || typeof body.model !== "string") return undefined;
  // A model that does not resolve is the call's own 400.
  const target = resolvedModelRef(body.model, inference.providers, mountProvider);
  const provider = target ? inference.providers.get(target.provider) : undefined;
  if (!target || !provider) return undefined;
  if (!answersResponsesItself(provider, target.model)) return body;
  const conversation = conversationIdOf(body.conversation);
  return conversation !== undefined && keptByGateway(inference.operations, conversation) ? { ...body, background: false } : undefined;
}

/** Starts the call as a job and answers at once with the response queued; its id is the job's. */
export async function startInBackground(background: BackgroundResponses, request: Request, body: Record<string, unknown>): Promise<Response> {
  if (body.store === false) throw badRequest("background: true needs the response stored, to be polled: drop store: false", "store");
  const jobId = await background.start(request, body);
  return Response.json(unfinishedResponse(responseIdFor(jobId), Date.now(), "queued", body));
}

/** The id of the response a request writes: its own, or for a background run the job's it replays. */
export function responseIdOf(request: Request, requestId: string): string {
  const job = isInternal(request) ? request.headers.get("x-gw-async-job-id") : null;
  return responseIdFor(job ?? requestId);
}

/** A background response the provider goes on writing (OpenAI's): its usage is billed when it is read back finished. */
async function rememberBackground(responses: StoredResponses | undefined, result: Dispatched & { body: string }): Promise<void> {
  try {
    const { id, status } = JSON.parse(result.body) as { id?: unknown; status?: unknown };
    if (typeof id !== "string" || (status !== "queued" && status !== "in_progress")) return;
    await responses?.startedInBackground(id, { provider: result.target.provider, model: result.target.model });
  } catch (error) {
    // The client still gets its response; only the billing of its usage is lost.
    console.error("a background response was not remembered for billing", error);
  }
}

/** Background responses the provider writes itself, attached to the pipeline: each is remembered once the provider has queued it. */
export function backgroundResponseOperation(responses: StoredResponses): OperationHandler {
  return {
    before: (call) =>
      call.operation === "responses" && call.body.background === true
        ? { answered: (result) => (result.operation === "responses" && "body" in result ? rememberBackground(responses, result) : undefined) }
        : undefined,
  };
}

export type { BackgroundResponses };
