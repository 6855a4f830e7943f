import { Type as t } from "@sinclair/typebox";
import { DELIVERY_STATUSES, ENDPOINT_STATES, WEBHOOK_EVENTS } from "../db/schema";
import { PageFields, Timestamp } from "../http/replies";
import { literals } from "../db/schema/types";

/** What the management API answers about webhook endpoints and deliveries (endpoint-view.ts, delivery-history.ts). */

const Seconds = t.Integer({ description: "Seconds." });
const When = t.Union([Timestamp, t.Null()]);

export const EndpointReply = t.Object(
  {
    id: t.String(),
    name: t.String(),
    url: t.String(),
    events: t.Array(literals(WEBHOOK_EVENTS)),
    headers: t.Record(t.String(), t.String(), { description: "Extra headers sent with each delivery, values redacted." }),
    include_response: t.Boolean(),
    allow_private_network: t.Boolean(),
    disabled: t.Boolean(),
    max_retries: t.Integer(),
    retry_backoff_initial_seconds: Seconds,
    retry_backoff_max_seconds: Seconds,
    attempt_timeout_seconds: Seconds,
    max_response_payload_kbs: t.Integer(),
    max_concurrent_deliveries: t.Integer(),
    max_deliveries_per_second: t.Integer({ description: "0: no rate limit." }),
    failing_after_failed_attempts: t.Integer(),
    disable_after_failing_seconds: Seconds,
    disable_after_failed_messages: t.Integer(),
    state: literals(ENDPOINT_STATES, { description: "Where the endpoint's lifecycle stands." }),
    state_since: Timestamp,
    failing_since: When,
    disabled_reason: t.Union([t.String(), t.Null()]),
    consecutive_failures: t.Integer(),
    last_success_at: t.Optional(Timestamp),
    last_failure_at: t.Optional(Timestamp),
    config_hash: t.String({ description: "Changes when the endpoint's configuration does." }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "WebhookEndpoint", description: "A webhook endpoint; never its signing secret." },
);

export const WebhookEndpointList = t.Object({ webhooks: t.Array(EndpointReply), count: t.Integer() }, { title: "WebhookEndpointList" });

export const EndpointWithSecret = t.Object(
  { endpoint: EndpointReply, secret: t.String({ description: "The signing secret: shown only here." }) },
  { title: "WebhookEndpointWithSecret", description: "The endpoint and its signing secret, shown this once." },
);

const Attempt = t.Object({
  attempt: t.Integer(),
  started_at: Timestamp,
  latency_ms: t.Integer(),
  status_code: t.Union([t.Integer(), t.Null()]),
  outcome: t.Union([t.Literal("delivered"), t.Literal("retryable"), t.Literal("permanent")]),
  error: t.Union([t.String(), t.Null()]),
  response_excerpt: t.Union([t.String(), t.Null()]),
});

export const WebhookDelivery = t.Object(
  {
    id: t.String(),
    webhook_id: t.String({ description: "The message: a redelivery keeps it." }),
    endpoint_id: t.String(),
    event: t.String(),
    job_id: t.Union([t.String(), t.Null()]),
    status: literals(DELIVERY_STATUSES),
    attempt_count: t.Integer(),
    last_status_code: t.Union([t.Integer(), t.Null()]),
    next_attempt_at: When,
    redelivery_of: t.Union([t.String(), t.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: When,
    attempts: t.Array(Attempt),
  },
  { title: "WebhookDelivery", description: "One message to one endpoint, with its attempts." },
);

export const DeliveryPage = t.Object({ deliveries: t.Array(WebhookDelivery), ...PageFields }, { title: "WebhookDeliveryPage" });

export const RedeliveryQueued = t.Object({ status: t.Literal("queued"), webhook_id: t.String(), delivery_id: t.String({ description: "The new delivery." }) }, { title: "WebhookRedeliveryQueued" });

export const RecoveryQueued = t.Object({ queued: t.Integer({ description: "Messages queued again." }), webhook_ids: t.Array(t.String()) }, { title: "WebhookRecoveryQueued" });
