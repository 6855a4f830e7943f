import { type Static, Type as t } from "@sinclair/typebox";

export const TelemetryConfig = t.Object(
  {
    metrics_token: t.Optional(t.String({ minLength: 1, description: "Bearer token that opens GET /metrics; `env.NAME` allowed; GATEWAY_METRICS_TOKEN wins." })),
    metrics_allowlist: t.Optional(t.Array(t.String(), { description: "IP addresses and CIDR ranges allowed to scrape GET /metrics without the token." })),
    otlp: t.Optional(
      t.Object(
        {
          endpoint: t.String({ pattern: "^https?://", description: "The collector's base URL (spans go to `<endpoint>/v1/traces`) or its full traces URL." }),
          headers: t.Optional(t.Record(t.String(), t.String(), { description: "Sent with every export (authentication, tenancy); values may be `env.NAME`." })),
          service_name: t.Optional(t.String({ minLength: 1, description: "The spans' service.name." })),
          protocol: t.Optional(t.Union([t.Literal("http/protobuf"), t.Literal("http/json")], { description: "OTLP/HTTP's encoding: http/protobuf (default) or http/json." })),
          capture_content: t.Optional(t.Boolean({ description: "Add the prompt and the reply to each span as an event (default false): they may hold personal data." })),
        },
        { additionalProperties: false, description: "OTLP/HTTP trace export by the GenAI semantic conventions; off unless an endpoint is set." },
      ),
    ),
  },
  { additionalProperties: false, description: "/metrics access and OTLP trace export; read at every start." },
);
export type TelemetryConfig = Static<typeof TelemetryConfig>;
