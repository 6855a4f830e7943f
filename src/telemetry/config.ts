import { type Static, Type as t } from "@sinclair/typebox";

/** config.json `telemetry`: deploy-time settings, read at every start. */
export const TelemetryConfig = t.Object(
  {
    /** Bearer token that opens GET /metrics; `env.NAME` allowed; GATEWAY_METRICS_TOKEN wins. */
    metrics_token: t.Optional(t.String({ minLength: 1 })),
    /** IP addresses and CIDR ranges allowed to scrape GET /metrics without the token. */
    metrics_allowlist: t.Optional(t.Array(t.String())),
    /** OTLP/HTTP (JSON) trace export; off unless an endpoint is set. */
    otlp: t.Optional(
      t.Object(
        {
          /** The collector's base URL (spans go to `<endpoint>/v1/traces`) or its full traces URL. */
          endpoint: t.String({ pattern: "^https?://" }),
          /** Sent with every export (authentication, tenancy); values may be `env.NAME`. */
          headers: t.Optional(t.Record(t.String(), t.String())),
          service_name: t.Optional(t.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type TelemetryConfig = Static<typeof TelemetryConfig>;
