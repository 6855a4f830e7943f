import type { FoundJob, StoredResponse } from "../../actors/async-job";

type Body = Record<string, unknown>;

/**
 * The runs of `background: true` responses the gateway writes itself (src/async runs them as
 * jobs), as the Responses API starts, reads and ends them; each takes the caller's headers.
 */
export interface BackgroundResponses {
  /** Starts the run of `body` as `request` asked it; the job's id. */
  start(request: Request, body: Body): Promise<string>;
  find(jobId: string, headers: Headers): Promise<FoundJob | undefined>;
  cancel(jobId: string, headers: Headers, response: StoredResponse): Promise<FoundJob | undefined>;
  discard(jobId: string, headers: Headers): Promise<boolean>;
}

/** What a cancelled background run keeps as its answer; its status tells it from a failure. */
const CANCELLED_STATUS = 499;

export const cancelledRun: StoredResponse = {
  status: CANCELLED_STATUS,
  contentType: "application/json",
  body: { json: { error: { type: "cancelled", message: "the background response was cancelled" } } },
};

/** A response of OpenAI's shape, not written yet. */
export function unfinishedResponse(id: string, createdAtMs: number, status: "queued" | "in_progress" | "cancelled" | "failed", request: Body = {}, error: unknown = null): Body {
  return {
    id,
    object: "response",
    created_at: Math.floor(createdAtMs / 1000),
    status,
    background: true,
    error,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    metadata: request.metadata ?? {},
    model: request.model ?? null,
    output: [],
    previous_response_id: request.previous_response_id ?? null,
    store: true,
    tools: request.tools ?? [],
    usage: null,
  };
}

/** A background response as its job stands: queued, in progress, written, failed or cancelled. */
export function backgroundView(id: string, { context, status }: FoundJob): Body {
  const response = context.response;
  const json = response && "json" in response.body ? (response.body.json as Body) : undefined;
  // The replay names its response by the job (a bridged one), or the provider answered it under an id of its own.
  if (status === "completed" && json) return { ...json, id, background: true };
  if (status === "pending") return unfinishedResponse(id, context.createdAt, "queued");
  if (status === "processing") return unfinishedResponse(id, context.createdAt, "in_progress");
  if (response?.status === CANCELLED_STATUS) return unfinishedResponse(id, context.createdAt, "cancelled");
  const message = (json?.error as { message?: unknown } | undefined)?.message;
  return unfinishedResponse(id, context.createdAt, "failed", {}, { code: "server_error", message: typeof message === "string" ? message : "the background response failed" });
}

/** A kept stream's state (src/streams), as the request that made it sees it. */
interface KeptStreamState {
  state: "upstream_open" | "completed" | "failed" | "cancelled";
  createdAtMs: number;
  error: string | null;
}

const STREAM_STATUS = { upstream_open: "in_progress", completed: "in_progress", cancelled: "cancelled", failed: "failed" } as const;

/**
 * A streamed background response not stored yet, as its kept stream stands. A completed stream
 * is stored as a response a moment after its last event: until then it reads as in progress.
 */
export function streamedView(id: string, stream: KeptStreamState): Body {
  const error = stream.state === "failed" ? { code: "server_error", message: stream.error ?? "the background response failed" } : null;
  return unfinishedResponse(id, stream.createdAtMs, STREAM_STATUS[stream.state], {}, error);
}
