import { Type as t } from "@sinclair/typebox";
import { Timestamp } from "../http/replies";

const When = t.Union([Timestamp, t.Null()]);

export const LogSinkStatus = t.Object({
  name: t.String(),
  source: t.Union([t.Literal("config"), t.Literal("api")], { description: "`config`: defined under `log_sinks` in the configuration file, read-only here; `api`: added through /api/log-sinks." }),
  type: t.Union([t.Literal("http"), t.Literal("file")]),
  destination: t.String({ description: "The receiver's URL without credentials or query, or the file's path." }),
  filter: t.Union([t.String(), t.Null()], { description: "The CEL expression rows must pass; null sends every row." }),
  fields: t.Union([t.Array(t.String()), t.Null()], { description: "The fields sent; null sends every field." }),
  include_content: t.Boolean(),
  allow_private_network: t.Boolean({ description: "An API sink whose address may be private (always false for the configuration's)." }),
  state: t.String({ description: "The sink's actor: `delivering` (sending, or waiting for rows), `backing_off` after a failed batch, `starting` before its first snapshot." }),
  node: t.Union([t.String(), t.Null()], { description: "The node delivering it (holding its lease)." }),
  next_attempt_at: When,
  last_delivered_at: t.Union([Timestamp, t.Null()], { description: "When the sink last accepted a batch." }),
  last_row_at: t.Union([Timestamp, t.Null()], { description: "When the last row delivered was logged." }),
  delivered_rows: t.Integer(),
  delivered_batches: t.Integer(),
  lag_rows: t.Integer({ description: "Rows stored and not yet given to the sink (counted up to 1,000,000)." }),
  lag_seconds: t.Integer({ description: "How long the oldest of them has waited; 0 when none." }),
  failed_attempts: t.Integer(),
  consecutive_failures: t.Integer({ description: "Failed attempts since the sink last accepted a batch." }),
  last_error: t.Union([t.String(), t.Null()], { description: "Why the last failed attempt failed; never a secret." }),
  last_failure_at: When,
});

export const LogSinkList = t.Object({ sinks: t.Array(LogSinkStatus), count: t.Integer() });
