import { count } from "drizzle-orm";
import type { Database } from "../db/client";
import { actorSnapshots, webhookDeliveries, webhookDeliveryAttempts } from "../db/schema";
import type { MetricsRegistry } from "./metrics-registry";

/** A state value as JSON (`"queued"`, `{"delivering":"attempt"}`) written as a path: `queued`, `delivering.attempt`. */
function statePath(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return json;
  }
  const parts: string[] = [];
  while (value && typeof value === "object") {
    const [key, inner] = Object.entries(value)[0] ?? [];
    if (key === undefined) break;
    parts.push(key);
    value = inner;
  }
  if (typeof value === "string") parts.push(value);
  return parts.join(".");
}

/**
 * Metrics read from durable state at scrape time, so they count what every node of a shared
 * database holds and survive restarts: live actors by kind and state (finished actors leave
 * actor_snapshots), webhook deliveries by status, and webhook delivery attempts by outcome.
 * Read-only aggregates over tables the actor runtime and the webhooks area own.
 */
export function registerDurableStateMetrics(registry: MetricsRegistry, db: Database): void {
  registry.gauge<"kind" | "state">({
    name: "gateway_actors",
    help: "Live durable actors (async jobs, webhook deliveries, per-user header flows, ...) by kind and state.",
    labelNames: ["kind", "state"],
    collect: async () => {
      const rows = await db.select({ kind: actorSnapshots.kind, state: actorSnapshots.state, value: count() }).from(actorSnapshots).groupBy(actorSnapshots.kind, actorSnapshots.state);
      return rows.map(({ kind, state, value }) => ({ labels: { kind, state: statePath(state) }, value }));
    },
  });
  registry.gauge<"status">({
    name: "gateway_webhook_deliveries",
    help: "Webhook deliveries in the delivery history by status.",
    labelNames: ["status"],
    collect: async () => {
      const rows = await db.select({ status: webhookDeliveries.status, value: count() }).from(webhookDeliveries).groupBy(webhookDeliveries.status);
      return rows.map(({ status, value }) => ({ labels: { status }, value }));
    },
  });
  registry.counter<"outcome">({
    name: "gateway_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts in the delivery history by outcome (delivered, retryable, permanent).",
    labelNames: ["outcome"],
    collect: async () => {
      const rows = await db.select({ outcome: webhookDeliveryAttempts.outcome, value: count() }).from(webhookDeliveryAttempts).groupBy(webhookDeliveryAttempts.outcome);
      return rows.map(({ outcome, value }) => ({ labels: { outcome }, value }));
    },
  });
}
