import type { WebhookEvent } from "../db/schema";
import type { WebhookEndpoint } from "./endpoint-store";

/** What the async-job side tells webhooks when a job ends. */
export interface FinishedJob {
  id: string;
  requestType: string;
  status: "completed" | "failed";
  statusCode: number;
  resultUrl: string;
  resultExpiresAt: Date;
  completedAt: Date;
  /** The result as polling returns it (completed jobs). */
  response?: unknown;
  /** The error body (failed jobs). */
  error?: unknown;
  /** The endpoint the request named with `x-gw-async-webhook`, if any. */
  webhook?: string;
}

export const eventOf = (job: FinishedJob): WebhookEvent => (job.status === "completed" ? "async_job.completed" : "async_job.failed");

/**
 * `{event, created_at, data:{job_id, request_type, status, status_code, result_url,
 * result_expires_at, response | response_omitted, error}}`; the response is inlined only when
 * the endpoint asks for it and it fits in max_response_payload_kbs.
 */
export function jobPayload(job: FinishedJob, endpoint: WebhookEndpoint): string {
  const data: Record<string, unknown> = {
    job_id: job.id,
    request_type: job.requestType,
    status: job.status,
    status_code: job.statusCode,
    result_url: job.resultUrl,
    result_expires_at: job.resultExpiresAt.toISOString(),
  };
  if (endpoint.includeResponse && job.response !== undefined) {
    const fits = Buffer.byteLength(JSON.stringify(job.response)) <= endpoint.maxResponsePayloadKbs * 1024;
    if (fits) data.response = job.response;
    else data.response_omitted = true;
  }
  if (job.error !== undefined) data.error = job.error;
  return JSON.stringify({ event: eventOf(job), created_at: job.completedAt.toISOString(), data });
}

export const TEST_EVENT = "webhook.test";

export function testPayload(endpoint: WebhookEndpoint, at: Date): string {
  return JSON.stringify({ event: TEST_EVENT, created_at: at.toISOString(), data: { endpoint_id: endpoint.id, message: "test delivery from the gateway" } });
}

/** An endpoint disabled or enabled again automatically, as its subscribers are told. */
export function endpointPayload(event: "webhook_endpoint.disabled" | "webhook_endpoint.enabled", endpoint: WebhookEndpoint, at: Date, details: { failingSince?: number; reason?: string }): string {
  const data = {
    endpoint_id: endpoint.id,
    name: endpoint.name,
    state: event === "webhook_endpoint.disabled" ? "disabled_automatically" : "active",
    ...(details.failingSince !== undefined && { failing_since: new Date(details.failingSince).toISOString() }),
    ...(details.reason !== undefined && { reason: details.reason }),
  };
  return JSON.stringify({ event, created_at: at.toISOString(), data });
}
