import type { AsyncJobContext, JobStatus } from "../../actors/async-job";
import { resultOf } from "./stored-request";

/** The machine's top-level state is the status clients see. */
export function statusOf(value: unknown): JobStatus {
  return (typeof value === "string" ? value : Object.keys(value as object)[0]) as JobStatus;
}

export const isFinished = (status: JobStatus) => status === "completed" || status === "failed";

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/**
 * `{id, status, created_at, expires_at}`, and once finished `completed_at`, `status_code` and
 * `result` (completed) or `error` (failed).
 */
export function jobView(context: AsyncJobContext, status: JobStatus) {
  const response = context.response;
  return {
    id: context.id,
    status,
    request_type: context.requestType,
    created_at: iso(context.createdAt)!,
    expires_at: iso(context.expiresAt)!,
    ...(context.startedAt !== undefined && { started_at: iso(context.startedAt) }),
    ...(context.completedAt !== undefined && { completed_at: iso(context.completedAt) }),
    ...(response && { status_code: response.status }),
    ...(response && status === "completed" && { result: resultOf(response) }),
    ...(response && status === "failed" && { error: resultOf(response) }),
  };
}
