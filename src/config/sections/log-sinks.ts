import { type Static, Type as t } from "@sinclair/typebox";

// Every description here is the configuration reference (docs/configuration.md).

const common = {
  name: t.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$", description: "The sink's name (lower-case letters, digits, `-`, `_`): its cursor, status and actor are kept under it." }),
  filter: t.Optional(t.String({ description: "A CEL expression over the row (its fields as GET /api/logs shows them, e.g. `status == \"error\" || cost > 0.01`): only rows it is true for are sent. Unset sends every row." })),
  fields: t.Optional(t.Array(t.String(), { minItems: 1, description: "The row's fields to send (default: every field GET /api/logs shows)." })),
  include_content: t.Optional(t.Boolean({ description: "Add `request_content` and `response_content` to each row (default false), when logs_store.content_logging keeps them." })),
  start_from: t.Optional(t.Union([t.Literal("new_rows"), t.Literal("stored_rows")], { description: "Where a sink seen for the first time starts: rows stored from then on (`new_rows`, default), or every row already stored (`stored_rows`)." })),
  batch_size: t.Optional(t.Integer({ minimum: 1, maximum: 10_000, description: "Rows read per batch (default 500)." })),
  poll_interval_ms: t.Optional(t.Integer({ minimum: 10, maximum: 600_000, description: "How often to look for rows stored by other nodes (default 1000); this node's rows wake the sink at once." })),
  retry_backoff_initial_ms: t.Optional(t.Integer({ minimum: 10, maximum: 3_600_000, description: "The wait after a failed batch (default 1000), doubled after each further failure..." })),
  retry_backoff_max_ms: t.Optional(t.Integer({ minimum: 10, maximum: 86_400_000, description: "...up to this (default 300000)." })),
};

export const HttpLogSink = t.Object(
  {
    type: t.Literal("http", { description: "`http`: batches POSTed to `url`; `file`: appended to `path`." }),
    ...common,
    url: t.String({ pattern: "^https?://", description: "http, required: where batches are POSTed (JSON lines, gzip)." }),
    secret: t.String({ pattern: "^(whsec_|env\\.)", description: "http, required: the Standard Webhooks signing secret (`whsec_` and base64), or `env.NAME`: every batch carries `webhook-id`, `webhook-timestamp` and `webhook-signature`." }),
    headers: t.Optional(t.Record(t.String(), t.String(), { description: "http: sent with every batch (authentication, tenancy); values may be `env.NAME`." })),
    timeout_seconds: t.Optional(t.Integer({ minimum: 1, maximum: 600, description: "http: how long a batch may take to be accepted (default 30)." })),
  },
  { additionalProperties: false },
);

export const FileLogSink = t.Object(
  {
    type: t.Literal("file", { description: "`http`: batches POSTed to `url`; `file`: appended to `path`." }),
    ...common,
    path: t.String({ minLength: 1, description: "file, required: the JSON lines file rows are appended to, for a log shipper to tail." }),
    max_bytes: t.Optional(t.Integer({ minimum: 1024, description: "file: the size past which it is rotated (default 104857600): it becomes `<path>.1`, the older ones shift." })),
    max_files: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: "file: rotated files kept beside the current one (default 5)." })),
  },
  { additionalProperties: false },
);

export const LogSinksConfig = t.Array(t.Union([HttpLogSink, FileLogSink]), {
  description: "Every stored request log row also delivered, in batches, to each sink, at least once: from a cursor per sink kept in the database, by one node at a time (docs/logs.md). Read at every start.",
});

export type HttpLogSink = Static<typeof HttpLogSink>;
export type FileLogSink = Static<typeof FileLogSink>;
export type LogSinkConfig = HttpLogSink | FileLogSink;
