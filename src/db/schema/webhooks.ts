import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const WEBHOOK_EVENTS = ["async_job.completed", "async_job.failed", "webhook_endpoint.disabled", "webhook_endpoint.enabled"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What an endpoint created without `events` subscribes to: the jobs' events; an endpoint's own lifecycle events are asked for by name. */
export const DEFAULT_WEBHOOK_EVENTS: WebhookEvent[] = ["async_job.completed", "async_job.failed"];

/** Where a delivery stands; the last four are final (`skipped`: never sent, its endpoint was disabled automatically). */
export const DELIVERY_STATUSES = ["queued", "attempting", "waiting_retry", "delivered", "failed", "exhausted", "skipped"] as const;

/** Where an endpoint's lifecycle stands (actors/webhook-endpoint.ts). */
export const ENDPOINT_STATES = ["active", "failing", "disabled_automatically", "disabled"] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * A receiver of webhook deliveries (spec 2.6). Tunables are stored resolved (a written 0 is
 * stored as the default). Headers and the signing secret are sealed with the secret box.
 */
export const webhookEndpoints = sqliteTable("webhook_endpoints", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  url: text("url").notNull(),
  events: text("events", { mode: "json" }).$type<WebhookEvent[]>().notNull(),
  sealedHeaders: text("sealed_headers").notNull(),
  includeResponse: integer("include_response", { mode: "boolean" }).notNull(),
  allowPrivateNetwork: integer("allow_private_network", { mode: "boolean" }).notNull(),
  disabled: integer("disabled", { mode: "boolean" }).notNull(),
  maxRetries: integer("max_retries").notNull(),
  retryBackoffInitialSeconds: integer("retry_backoff_initial_seconds").notNull(),
  retryBackoffMaxSeconds: integer("retry_backoff_max_seconds").notNull(),
  attemptTimeoutSeconds: integer("attempt_timeout_seconds").notNull(),
  maxResponsePayloadKbs: integer("max_response_payload_kbs").notNull(),
  maxConcurrentDeliveries: integer("max_concurrent_deliveries").notNull(),
  /** 0: no rate limit. */
  maxDeliveriesPerSecond: integer("max_deliveries_per_second").notNull().default(0),
  failingAfterFailedAttempts: integer("failing_after_failed_attempts").notNull().default(5),
  disableAfterFailingSeconds: integer("disable_after_failing_seconds").notNull().default(432_000),
  disableAfterFailedMessages: integer("disable_after_failed_messages").notNull().default(3),
  /** The endpoint actor's state, mirrored in the same commit as its snapshot: what every node's delivery path reads. */
  state: text("state", { enum: ENDPOINT_STATES }).notNull().default("active"),
  stateSince: integer("state_since", { mode: "timestamp_ms" }),
  failingSince: integer("failing_since", { mode: "timestamp_ms" }),
  disabledReason: text("disabled_reason"),
  sealedSecret: text("sealed_secret").notNull(),
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  lastSuccessAt: integer("last_success_at", { mode: "timestamp_ms" }),
  lastFailureAt: integer("last_failure_at", { mode: "timestamp_ms" }),
  configHash: text("config_hash").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * One message to one endpoint and its outcome. A redelivery is a new row with the same
 * `webhook_id` (receivers deduplicate on it) and `redelivery_of` pointing at the original.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id").notNull(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    jobId: text("job_id"),
    payload: text("payload").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    lastStatusCode: integer("last_status_code"),
    redeliveryOf: text("redelivery_of"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    completedAt: integer("completed_at", { mode: "timestamp_ms" }),
  },
  (table) => [
    index("webhook_deliveries_endpoint_idx").on(table.endpointId, table.createdAt),
    index("webhook_deliveries_created_idx").on(table.createdAt),
    index("webhook_deliveries_webhook_id_idx").on(table.webhookId),
  ],
);

/** Each HTTP attempt of a delivery, as the history endpoints show it. */
export const webhookDeliveryAttempts = sqliteTable(
  "webhook_delivery_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    latencyMs: integer("latency_ms").notNull(),
    statusCode: integer("status_code"),
    outcome: text("outcome", { enum: ["delivered", "retryable", "permanent"] }).notNull(),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
  },
  (table) => [index("webhook_delivery_attempts_delivery_idx").on(table.deliveryId, table.attempt)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookDeliveryAttemptRow = typeof webhookDeliveryAttempts.$inferSelect;
