import type { MetricsRegistry } from "./metrics-registry";

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

type Target = "provider" | "model";

/** The inference metrics the telemetry plugin records for every settled request. */
export function inferenceMetrics(registry: MetricsRegistry) {
  return {
    requests: registry.counter<Target | "request_type" | "status">({
      name: "gateway_requests_total",
      help: "Inference requests by target, request type and outcome (success or error).",
      labelNames: ["provider", "model", "request_type", "status"],
    }),
    errors: registry.counter<Target | "error_type">({
      name: "gateway_errors_total",
      help: "Failed inference requests by error_type (caller_, policy_, provider_, gateway_).",
      labelNames: ["provider", "model", "error_type"],
    }),
    latency: registry.histogram<Target | "request_type">({
      name: "gateway_request_duration_seconds",
      help: "Time from a request's arrival to the end of its reply (streams: the last byte).",
      labelNames: ["provider", "model", "request_type"],
      buckets: SECONDS_BUCKETS,
    }),
    upstreamLatency: registry.histogram<Target>({
      name: "gateway_upstream_duration_seconds",
      help: "Time from the request leaving the gateway's hooks for the upstream to the end of the upstream's reply; cache hits have none.",
      labelNames: ["provider", "model"],
      buckets: SECONDS_BUCKETS,
    }),
    tokens: registry.counter<Target | "direction">({
      name: "gateway_tokens_total",
      help: "Tokens the providers processed, as they reported them, by direction (input or output); cache hits add none.",
      labelNames: ["provider", "model", "direction"],
    }),
    cost: registry.counter<Target>({ name: "gateway_cost_usd_total", help: "Cost of answered requests in USD, where pricing knows the model.", labelNames: ["provider", "model"] }),
    cacheHits: registry.counter<"type">({ name: "gateway_cache_hits_total", help: "Requests answered by the response cache, by hit type (direct or semantic).", labelNames: ["type"] }),
  };
}

export type InferenceMetrics = ReturnType<typeof inferenceMetrics>;

/** What the request-log writer tells about its bounded queue. */
export interface LogQueueStatus {
  depth: number;
  bytes: number;
  dropped: number;
  failed: number;
  retries: number;
  /** Of the `failed`, the rows set aside in the crash journal's quarantine file. */
  quarantined: number;
}

/** The request-log writer's queue: read at every scrape. */
export function registerLogQueueMetrics(registry: MetricsRegistry, status: () => LogQueueStatus): void {
  registry.counter({ name: "gateway_log_queue_dropped_total", help: "Request log rows dropped because the log queue was full.", collect: () => [{ labels: {}, value: status().dropped }] });
  registry.counter({ name: "gateway_log_write_failed_total", help: "Request log rows lost: the table refused them, or the database was still unavailable when the gateway stopped.", collect: () => [{ labels: {}, value: status().failed }] });
  registry.counter({ name: "gateway_log_rows_quarantined_total", help: "Request log rows the table refused even without their full-text entry, set aside in the quarantine file beside the crash journal.", collect: () => [{ labels: {}, value: status().quarantined }] });
  registry.counter({ name: "gateway_log_write_retries_total", help: "Request log batch writes the database did not take (busy, locked, out of reach) and that were tried again.", collect: () => [{ labels: {}, value: status().retries }] });
  registry.gauge({ name: "gateway_log_queue_depth", help: "Request log rows waiting to be written, not counting the batch being written.", collect: () => [{ labels: {}, value: status().depth }] });
  registry.gauge({ name: "gateway_log_queue_bytes", help: "Memory the request log rows waiting to be written hold, roughly, in bytes (bounded: rows beyond it are dropped).", collect: () => [{ labels: {}, value: status().bytes }] });
}
