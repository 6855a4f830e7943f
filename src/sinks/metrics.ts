import type { Database } from "../db/client";
import type { ReadDatabase } from "../logs/worker-reader";
import type { MetricsRegistry } from "../telemetry";
import type { ConfiguredSink } from "./configured-sinks";
import { type SinkStatus, sinkStatus } from "./status";

/** The sinks' figures on /metrics, read from the database at scrape time: the same on every node, and right across restarts. */
export function registerSinkMetrics(metrics: MetricsRegistry, db: Database, read: ReadDatabase, sinks: () => readonly ConfiguredSink[], now: () => number): void {
  // One read per scrape serves the four metrics, which collect one after the other.
  let last: { at: number; statuses: Promise<SinkStatus[]> } | undefined;
  const statuses = () => {
    const at = now();
    if (!last || at - last.at > 250) last = { at, statuses: Promise.all(sinks().map((sink) => sinkStatus(db, read, sink, at))) };
    return last.statuses;
  };
  const figure = (pick: (status: SinkStatus) => number) => async () => (await statuses()).map((status) => ({ labels: { sink: status.name }, value: pick(status) }));
  metrics.counter<"sink">({ name: "gateway_log_sink_rows_delivered_total", help: "Request log rows each log sink accepted.", labelNames: ["sink"], collect: figure((status) => status.delivered_rows) });
  metrics.counter<"sink">({ name: "gateway_log_sink_failed_attempts_total", help: "Batches a log sink did not accept (an error status, no answer, a write that failed); each is tried again.", labelNames: ["sink"], collect: figure((status) => status.failed_attempts) });
  metrics.gauge<"sink">({ name: "gateway_log_sink_lag_rows", help: "Request log rows stored and not yet given to each log sink (counted up to 1,000,000).", labelNames: ["sink"], collect: figure((status) => status.lag_rows) });
  metrics.gauge<"sink">({ name: "gateway_log_sink_lag_seconds", help: "How long the oldest row not yet given to each log sink has waited.", labelNames: ["sink"], collect: figure((status) => status.lag_seconds) });
}
