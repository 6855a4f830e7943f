import { resolveEnvReference } from "../config/env-reference";
import { AddressAllowlist, type BuiltinPlugin } from "../plugins";
import type { Database } from "../db/client";
import type { TelemetryConfig } from "../config/sections/telemetry";
import { registerDurableStateMetrics } from "./durable-state-metrics";
import { inferenceMetrics, type LogQueueStatus, registerLogQueueMetrics } from "./gateway-metrics";
import { metricsRoutes } from "./metrics-route";
import { MetricsRegistry } from "./metrics-registry";
import { OtlpTraceExporter } from "./otlp-exporter";
import { registerOtlpMetrics } from "./otlp-metrics";
import { telemetryHooks } from "./telemetry-hooks";
import { createTraces, type Traces } from "./traces";

export { TelemetryConfig } from "../config/sections/telemetry";
export type { Counter, Gauge, Histogram, MetricsRegistry, Sample } from "./metrics-registry";

export interface TelemetryOptions {
  db: Database;
  config?: TelemetryConfig;
  env: Record<string, string | undefined>;
  /** The request-log writer's queue status. */
  logQueue: () => LogQueueStatus;
}

function tracesFor(config: TelemetryConfig["otlp"], env: Record<string, string | undefined>): Traces | undefined {
  if (!config) return undefined;
  const headers = Object.fromEntries(Object.entries(config.headers ?? {}).map(([name, value]) => [name, resolveEnvReference(value, env)]));
  const exporter = new OtlpTraceExporter({ endpoint: config.endpoint, headers, serviceName: config.service_name ?? "gateway", protocol: config.protocol });
  return createTraces(exporter, config.capture_content ?? false);
}

/**
 * Metrics and traces. `metrics` is the registry other areas add theirs to; `builtin` is the telemetry plugin that records every inference request;
 * `routes` serves GET /metrics.
 */
export function createTelemetry({ db, config, env, logQueue }: TelemetryOptions) {
  const metrics = new MetricsRegistry();
  const inference = inferenceMetrics(metrics);
  registerLogQueueMetrics(metrics, logQueue);
  registerDurableStateMetrics(metrics, db);
  const traces = tracesFor(config?.otlp, env);
  if (traces) registerOtlpMetrics(metrics, traces.exporter.drops);
  const exporter = traces?.exporter;
  const builtin: BuiltinPlugin = { name: "telemetry", placement: "after-custom", failClosed: false, create: () => telemetryHooks(inference, traces) };
  const token = env.GATEWAY_METRICS_TOKEN || resolveEnvReference(config?.metrics_token ?? "", env) || undefined;
  const allowlist = new AddressAllowlist(config?.metrics_allowlist, "telemetry.metrics_allowlist");
  return {
    metrics,
    builtin,
    routes: metricsRoutes(metrics, { token, allowlist }),
    /** For the MCP gateway: an `execute_tool` span per tool call; undefined while no OTLP endpoint is set. */
    onToolCall: traces?.onToolCall,
    flush: () => exporter?.flush(),
    close: async () => exporter?.flush(),
  };
}

export type Telemetry = ReturnType<typeof createTelemetry>;
