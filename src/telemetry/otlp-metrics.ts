import type { MetricsRegistry } from "./metrics-registry";
import type { ExportDrops } from "./otlp-exporter";

/** Spans the OTLP exporter lost, by why: read at every scrape. */
export function registerOtlpMetrics(registry: MetricsRegistry, drops: ExportDrops): void {
  registry.counter<"reason">({
    name: "gateway_otlp_spans_dropped_total",
    help: "Trace spans never exported: the export queue was full (queue_full), or the collector refused the batch or did not take it after every retry (export_failed).",
    labelNames: ["reason"],
    collect: () => [
      { labels: { reason: "queue_full" }, value: drops.queueFull },
      { labels: { reason: "export_failed" }, value: drops.failed },
    ],
  });
}
