import { type Static, Type as t } from "@sinclair/typebox";
import { McpSettings } from "../mcp/settings";
import { PluginCreateInput } from "../plugins/schemas";
import { ProviderSeed } from "../provider-registry/schemas";
import { TelemetryConfig } from "../telemetry/config";

/** config.json: everything optional; the database is the source of truth once seeded. */
export const GatewayConfig = t.Object(
  {
    server: t.Optional(
      t.Object({
        host: t.Optional(t.String()),
        port: t.Optional(t.Integer({ minimum: 0, maximum: 65535 })),
        /** Seconds a connection may stay silent before its request has fully arrived (default 30; Bun allows 255). */
        idle_timeout_seconds: t.Optional(t.Integer({ minimum: 1, maximum: 255 })),
        /** The largest request body in MiB (default 128): a larger declared body is a 413 with the gateway's error body. */
        max_request_body_mb: t.Optional(t.Integer({ minimum: 1, maximum: 4096 })),
        /**
         * Seconds the requests under way get to finish after SIGTERM or SIGINT, while no new
         * connection is taken (default 8, inside the 10 s Docker waits before SIGKILL).
         */
        shutdown_grace_seconds: t.Optional(t.Integer({ minimum: 0, maximum: 3600 })),
        plugin_download_private_allowlist: t.Optional(t.Array(t.String())),
      }),
    ),
    database: t.Optional(t.Object({ url: t.Optional(t.String()), auth_token: t.Optional(t.String()) })),
    edition: t.Optional(t.Union([t.Literal("oss"), t.Literal("enterprise")])),
    /** OSS setup lock token (spec 5.6); `env.NAME` allowed; GATEWAY_SETUP_TOKEN wins; generated when absent. */
    setup_token: t.Optional(t.String()),
    /** The dashboard admin account; applied at start whenever this section changes. */
    auth: t.Optional(
      t.Object(
        {
          admin_username: t.Optional(t.String({ minLength: 1 })),
          /** `env.NAME` allowed; stored only as an argon2id hash. */
          admin_password: t.Optional(t.String({ minLength: 1 })),
          /** Default true when credentials are given. */
          enabled: t.Optional(t.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    enforce_auth_on_inference: t.Optional(t.Boolean()),
    /**
     * The environment variables `env.NAME` values may read: names, `PREFIX*` or `*SUFFIX`
     * (default `*_API_KEY`, `PROVIDER_*`, `GATEWAY_SECRET_*`). The gateway's own GATEWAY_*
     * settings are never readable. Config file only.
     */
    env_references: t.Optional(
      t.Object({ allow: t.Array(t.String({ pattern: "^(\\*[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*\\*?)$" })) }, { additionalProperties: false }),
    ),
    /**
     * The outbound address policy (providers, MCP, A2A, webhooks): link-local and metadata
     * addresses are never reached; loopback and private ones only at the admin's word, or at
     * anyone's with `allow_private_addresses`. Config file only.
     */
    network: t.Optional(t.Object({ allow_private_addresses: t.Optional(t.Boolean()) }, { additionalProperties: false })),
    providers: t.Optional(t.Record(t.String(), ProviderSeed)),
    /**
     * Plugins as POST /api/plugins takes them, each applied once (while the database knows no
     * plugin of that name): custom modules by `path`, built-ins (`response_cache`, ...) by `config`.
     */
    plugins: t.Optional(t.Array(PluginCreateInput)),
    /** /metrics access and OTLP trace export (src/telemetry/README.md). */
    telemetry: t.Optional(TelemetryConfig),
    /** Request logs: content logging (default on) and how many days rows are kept (unset keeps them). */
    logs_store: t.Optional(
      t.Object({ content_logging: t.Optional(t.Boolean()), retention_days: t.Optional(t.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    ),
    /** Responses the gateway writes for providers without a Responses API (src/responses): kept unless disabled, for `retention_days` (default 30). */
    stored_responses: t.Optional(
      t.Object({ enabled: t.Optional(t.Boolean()), retention_days: t.Optional(t.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    ),
    /** MCP clients, agent mode and per-user header flows (src/mcp/settings.ts). */
    mcp: t.Optional(McpSettings),
    /** /v1/async jobs: how many run at once on this node (default 64); the rest wait as `pending`. */
    async_inference: t.Optional(t.Object({ max_concurrent_jobs: t.Optional(t.Integer({ minimum: 1 })) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type GatewayConfig = Static<typeof GatewayConfig>;
