import type { BackgroundResponses } from "../async/background-responses";
import { badRequest } from "../http/errors";
import { isInternal } from "../http/internal-requests";
import type { StoredResponses } from "../responses";
import { unfinishedResponse } from "../responses/background-view";
import { responseIdFor } from "../responses/ids";
import { answersResponsesItself, type Dispatched } from "./dispatch";
import type { Inference } from "./handle";
import { resolvedModelRef } from "./model-ref";

/**
 * A Responses call with `background: true` to a provider without a Responses API: OpenAI's own
 * run it in the background themselves; for the rest the gateway does, as an async job, unless
 * the call streams (its stream is the answer). Like `POST /v1/async/responses`, the job's replay
 * (the same call, which runs in the foreground) is the call that is governed, logged and billed.
 */
export function runsInBackground(inference: Inference, request: Request, body: Record<string, unknown>, mountProvider: string | undefined): boolean {
  if (body.background !== true || body.stream === true || !inference.background || isInternal(request) || typeof body.model !== "string") return false;
  // A model that does not resolve is the call's own 400.
  const target = resolvedModelRef(body.model, inference.providers, mountProvider);
  const provider = target ? inference.providers.get(target.provider) : undefined;
  return target !== undefined && provider !== undefined && !answersResponsesItself(provider, target.model);
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
export async function rememberBackground(responses: StoredResponses | undefined, result: Dispatched & { body: string }): Promise<void> {
  try {
    const { id, status } = JSON.parse(result.body) as { id?: unknown; status?: unknown };
    if (typeof id !== "string" || (status !== "queued" && status !== "in_progress")) return;
    await responses?.startedInBackground(id, { provider: result.target.provider, model: result.target.model });
  } catch (error) {
    // The client still gets its response; only the billing of its usage is lost.
    console.error("a background response was not remembered for billing", error);
  }
}

export type { BackgroundResponses };
