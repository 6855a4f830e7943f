import { t } from "elysia";
import { Type } from "@sinclair/typebox";
import { DELIVERY_STATUSES, WEBHOOK_EVENTS } from "../db/schema/webhooks";
import { INT32_MAX } from "../http/integers";
import { PageLimit, PageOffset } from "../http/pagination";
import { Timestamp } from "../http/timestamps";

/** A tunable is at most a 32-bit integer (68 years of seconds): larger values overflowed a delivery's next-attempt date, or the database's integers, and wedged every webhook write. */
const Tunable = t.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX }));
const WebhookEventName = t.Union(WEBHOOK_EVENTS.map((event) => t.Literal(event)));

/** The writable fields of spec 2.6. */
const writable = {
  name: t.String({ minLength: 1, maxLength: 200, pattern: "\\S" }),
  url: t.String({ minLength: 1, maxLength: 2048 }),
  events: t.Optional(t.Array(WebhookEventName, { minItems: 1, uniqueItems: true })),
  headers: t.Optional(t.Record(t.String(), t.String())),
  include_response: t.Optional(t.Boolean()),
  allow_private_network: t.Optional(t.Boolean()),
  disabled: t.Optional(t.Boolean()),
  max_retries: Tunable,
  retry_backoff_initial_seconds: Tunable,
  retry_backoff_max_seconds: Tunable,
  attempt_timeout_seconds: Tunable,
  max_response_payload_kbs: Tunable,
  max_concurrent_deliveries: Tunable,
  max_deliveries_per_second: Tunable,
  failing_after_failed_attempts: Tunable,
  disable_after_failing_seconds: Tunable,
  disable_after_failed_messages: Tunable,
};

export const WebhookEndpointCreate = t.Object(writable, { additionalProperties: false });

/**
 * Spec 4.14: any writable field; omitted ones keep their value. `secret` is accepted only to be
 * refused with a message that points at rotate-secret.
 */
export const WebhookEndpointUpdate = t.Object(
  { ...writable, name: t.Optional(writable.name), url: t.Optional(writable.url), secret: t.Optional(t.Unknown()) },
  { additionalProperties: false },
);

export type WebhookEndpointCreate = typeof WebhookEndpointCreate.static;
export type WebhookEndpointUpdate = typeof WebhookEndpointUpdate.static;

const commaSeparated = (values: readonly string[]) => {
  const one = `(${values.map((value) => value.replace(".", "\\.")).join("|")})`;
  return t.String({ pattern: `^${one}(,${one})*$` });
};

export const DeliveryHistoryQuery = t.Object({
  endpoint_id: t.Optional(t.String({ minLength: 1 })),
  job_id: t.Optional(t.String({ minLength: 1 })),
  event: t.Optional(commaSeparated([...WEBHOOK_EVENTS, "webhook.test"])),
  /** Where the delivery stands: queued, attempting, waiting_retry, delivered, failed, exhausted. */
  outcome: t.Optional(commaSeparated(DELIVERY_STATUSES)),
  /** Class of the last response status: 2xx..5xx, or `none` when no response came. */
  status_class: t.Optional(commaSeparated(["1xx", "2xx", "3xx", "4xx", "5xx", "none"])),
  start_time: t.Optional(Timestamp()),
  end_time: t.Optional(Timestamp()),
  limit: PageLimit(500),
  offset: PageOffset(),
});

export type DeliveryHistoryQuery = typeof DeliveryHistoryQuery.static;

export const IdParams = t.Object({ id: t.String({ minLength: 1 }) });

/** POST /api/webhooks/{id}/recover: re-send what failed or was skipped since `since`. */
export const RecoverBody = t.Object({ since: Timestamp() }, { additionalProperties: false });
