import { Elysia } from "elysia";
import { badRequest } from "../http/errors";
import { ASYNC_KINDS, hasNoAsyncTwin, isStreamingPath, requestTypeOfMountPath } from "./job-kinds";
import type { FoundJob } from "../../actors/async-job";
import type { AsyncJobs } from "./jobs";
import { ownerOf } from "./ownership";
import { jobNotFound, pollResponse } from "./routes";
import { readSubmission } from "./submission";

/** A finished job answers in the mount's own format: the stored response, status and body as they came. */
function nativeResult(found: FoundJob): Response {
  const response = found.context.response;
  if (!response || (found.status !== "completed" && found.status !== "failed")) return pollResponse(found);
  const body = "json" in response.body ? JSON.stringify(response.body.json) : Buffer.from(response.body.base64, "base64");
  return new Response(body, { status: response.status, headers: { "content-type": response.contentType, "x-gw-async-id": found.context.id } });
}

const isUnder = (roots: readonly string[], path: string) => roots.some((root) => path === root || path.startsWith(`${root}/`));

/** The async routes' own root: the headers mean nothing on them. */
const ASYNC_ROOT = "/v1/async";

export interface MountHookOptions {
  hasWebhook: (name: string) => boolean;
  mountRoots: readonly string[];
  exceptUnder?: readonly string[];
  checkCaller: (headers: Headers) => void;
}

/**
 * On `/v1` and the provider and framework mounts, `x-gw-async: true` submits the request as a job
 * (202 with the job) and `x-gw-async-id: <id>` polls one: 202 while it runs, then the response the
 * synchronous call would have given.
 */
export function asyncMountHook(jobs: AsyncJobs, { hasWebhook, mountRoots, exceptUnder = [], checkCaller }: MountHookOptions) {
  const excluded = [ASYNC_ROOT, ...exceptUnder];
  async function answer(request: Request, pollId: string | undefined): Promise<Response | undefined> {
    const url = new URL(request.url);
    if (!isUnder(mountRoots, url.pathname) || isUnder(excluded, url.pathname)) return;
    if (pollId) {
      const found = await jobs.find(pollId, ownerOf(request.headers));
      if (!found) throw jobNotFound(pollId);
      return nativeResult(found);
    }
    if (request.method !== "POST") return;
    // Before anything else: a caller who may not run the job stores nothing.
    checkCaller(request.headers);
    if (hasNoAsyncTwin(url.pathname)) throw badRequest("batches, files and containers are not available asynchronously: send the call without x-gw-async", "x-gw-async");
    if (isStreamingPath(url.pathname) || url.searchParams.get("alt") === "sse") {
      throw badRequest("streaming endpoints are not available asynchronously", "x-gw-async", "caller_streaming_unsupported");
    }
    const submission = await readSubmission(request, url.pathname + url.search, hasWebhook);
    // A /v1 call with a /v1/async twin is that kind's job, polled on either route.
    const kind = ASYNC_KINDS.find((candidate) => candidate.syncPath === url.pathname);
    const job = await jobs.submit(
      kind
        ? { ...submission, route: kind.name, requestType: kind.requestType, resultUrl: (id) => `${url.origin}/v1/async/${kind.name}/${id}` }
        : { ...submission, route: url.pathname, requestType: requestTypeOfMountPath(url.pathname), resultUrl: () => `${url.origin}${url.pathname}` },
    );
    return pollResponse(job);
  }

  return new Elysia({ name: "async-mount-hook" }).onRequest(({ request }) => {
    const pollId = request.headers.get("x-gw-async-id")?.trim();
    const submit = request.headers.get("x-gw-async")?.trim().toLowerCase() === "true";
    if (pollId || submit) return answer(request, pollId);
  });
}
