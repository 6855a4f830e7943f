import { type Static, Type as t } from "@sinclair/typebox";
import { CorsConfig } from "../http/cors-config";
import { RefusedRequestLogging } from "./sections/refused-requests";
import { OidcSignInConfig } from "./sections/oidc";
import { McpSettings } from "./sections/mcp";
import { PluginCreateInput } from "./sections/plugins";
import { ProviderSeed } from "./sections/providers";
import { TelemetryConfig } from "./sections/telemetry";
import { LogSinksConfig } from "./sections/log-sinks";

// Every description here is the configuration reference (docs/configuration.md, written by `npm run config-reference`).

/** config.json: everything optional; the database is the source of truth once seeded. */
export const GatewayConfig = t.Object(
  {
    server: t.Optional(
      t.Object(
        {
          host: t.Optional(t.String({ description: "Listening address (default 127.0.0.1). Any address but loopback needs a choice about inference: see `allow_open_inference`." })),
          port: t.Optional(t.Integer({ minimum: 0, maximum: 65535, description: "Listening port (default 8080)." })),
          idle_timeout_seconds: t.Optional(
            t.Integer({ minimum: 1, maximum: 255, description: "Seconds a connection may stay silent before its request has fully arrived (default 30; Bun allows 255). A request being served is bounded by its provider's timeout instead." }),
          ),
          max_request_body_mb: t.Optional(
            t.Integer({ minimum: 1, maximum: 4096, description: "The largest request body in MiB (default 128): a larger declared body is a 413 with the gateway's error body. Raise it for file uploads up to OpenAI's 512 MB." }),
          ),
          body_timeout_seconds: t.Optional(
            t.Integer({ minimum: 1, maximum: 3_600, description: "The longest a JSON request body may take to arrive in full (default 60): one still arriving then is a 408 and its connection is closed, however steadily it trickles." }),
          ),
          max_json_depth: t.Optional(
            t.Integer({ minimum: 1, maximum: 4_096, description: "How deep a JSON request body may nest, in objects and arrays (default 128): a deeper one is a 400 before it is parsed." }),
          ),
          shutdown_delay_seconds: t.Optional(
            t.Integer({
              minimum: 0,
              maximum: 3600,
              description: "Seconds after SIGTERM or SIGINT during which /health/ready answers 503 while new connections are still taken, so a load balancer stops sending traffic before they are refused (default 0). On Kubernetes a few seconds, within terminationGracePeriodSeconds.",
            }),
          ),
          shutdown_grace_seconds: t.Optional(
            t.Integer({
              minimum: 0,
              maximum: 3600,
              description: "Seconds the requests under way, streams included, get to finish after SIGTERM or SIGINT (and the delay above), while no new connection is taken (default 8, inside the 10 s Docker waits before SIGKILL). A second signal cuts the wait short.",
            }),
          ),
          workers: t.Optional(
            t.Integer({
              minimum: 1,
              maximum: 256,
              description:
                "Gateway processes serving the one port (default 1): the first starts the others, restarts one that dies, and on SIGTERM drains them all. Rate limits and budgets stay exact across them; use about one per core. `--workers` wins.",
            }),
          ),
          plugin_download_private_allowlist: t.Optional(t.Array(t.String(), { description: "IP addresses and CIDR ranges of private networks a plugin may be downloaded from; public addresses are always allowed." })),
        },
        { description: "The HTTP server." },
      ),
    ),
    database: t.Optional(
      t.Object(
        {
          url: t.Optional(t.String({ description: "libSQL URL: `file:./data/gateway.db` (the default), or a libSQL server (`libsql://…`, `http://…`). GATEWAY_DB_URL wins." })),
          auth_token: t.Optional(t.String({ description: "The libSQL server's token (of the primary, for an embedded replica). GATEWAY_DB_AUTH_TOKEN wins." })),
          sync_url: t.Optional(
            t.String({
              description:
                "The primary (`libsql://…`, `http(s)://…`) that `url`, then a local `file:` path, is an embedded replica of: reads are local, writes go to the primary. GATEWAY_DB_SYNC_URL wins.",
            }),
          ),
          sync_interval_seconds: t.Optional(
            t.Number({ exclusiveMinimum: 0, description: "Seconds between an embedded replica's syncs from its primary (default 1). GATEWAY_DB_SYNC_INTERVAL wins." }),
          ),
        },
        { description: "Where everything is stored." },
      ),
    ),
    edition: t.Optional(t.Union([t.Literal("oss"), t.Literal("enterprise")], { description: "`oss` (default) or `enterprise`: enterprise turns on role-based access for the management API." })),
    setup_token: t.Optional(
      t.String({ description: "The setup lock's token: every management call needs it until a dashboard admin exists. `env.NAME` allowed; GATEWAY_SETUP_TOKEN wins; generated and printed at first start when absent." }),
    ),
    auth: t.Optional(
      t.Object(
        {
          admin_username: t.Optional(t.String({ minLength: 1, description: "The dashboard admin's user name." })),
          admin_password: t.Optional(t.String({ minLength: 1, description: "`env.NAME` allowed; stored only as an argon2id hash." })),
          enabled: t.Optional(t.Boolean({ description: "Default true when credentials are given." })),
        },
        { additionalProperties: false, description: "The dashboard admin account; applied at start whenever this section changes." },
      ),
    ),
    oidc: t.Optional(OidcSignInConfig),
    enforce_auth_on_inference: t.Optional(t.Boolean({ description: "Every inference call needs a virtual key (default false). Changeable while running with PUT /api/config." })),
    allow_open_inference: t.Optional(
      t.Boolean({
        description:
          "Serve inference without a virtual key on an address other than loopback. Without it, or `enforce_auth_on_inference`, the gateway refuses to start there (exit code 2), and PUT /api/config refuses to turn enforcement off, since anyone who reaches the port would spend the provider keys. GATEWAY_ALLOW_OPEN_INFERENCE=true does the same.",
      }),
    ),
    env_references: t.Optional(
      t.Object(
        {
          allow: t.Array(t.String({ pattern: "^(\\*[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*\\*?)$" }), {
            description: "Names, `PREFIX*` or `*SUFFIX` patterns (default `*_API_KEY`, `PROVIDER_*`, `GATEWAY_SECRET_*`).",
          }),
        },
        { additionalProperties: false, description: "The environment variables `env.NAME` values may read. The gateway's own GATEWAY_* settings are never readable. Config file only." },
      ),
    ),
    cors: t.Optional(CorsConfig),
    network: t.Optional(
      t.Object(
        {
          allow_private_addresses: t.Optional(
            t.Boolean({ description: "Let every role, not only the admin, point providers, MCP servers, A2A agents and webhooks at loopback and private addresses (default false)." }),
          ),
        },
        {
          additionalProperties: false,
          description: "The outbound address policy (providers, MCP, A2A, webhooks, plugins): link-local and cloud metadata addresses are never reached; loopback and private ones only at the admin's word, or anyone's with `allow_private_addresses`. Config file only.",
        },
      ),
    ),
    providers: t.Optional(t.Record(t.String(), ProviderSeed, { description: "Providers and their keys by name, as POST /api/providers takes them; applied while the database does not know the provider." })),
    plugins: t.Optional(
      t.Array(PluginCreateInput, {
        description: "Plugins as POST /api/plugins takes them, each applied once (while the database knows no plugin of that name): custom modules by `path`, built-ins (`response_cache`, ...) by `config`.",
      }),
    ),
    telemetry: t.Optional(TelemetryConfig),
    alerts: t.Optional(
      t.Object(
        {
          dashboard_url: t.Optional(t.String({ description: "The dashboard's address as people reach it (`https://gateway.example.com`): alert notifications link to its logs there. Unset, the link is a path only." })),
        },
        { additionalProperties: false, description: "Alert notifications (docs/alerts.md). Changeable while running with PUT /api/config." },
      ),
    ),
    logs_store: t.Optional(
      t.Object(
        {
          content_logging: t.Optional(t.Boolean({ description: "Keep request and response bodies in the logs (default true)." })),
          retention_days: t.Optional(t.Integer({ minimum: 1, description: "Days a log row is kept (unset keeps them)." })),
          refused_requests: t.Optional(RefusedRequestLogging),
        },
        { additionalProperties: false, description: "Request logs. Changeable while running with PUT /api/config." },
      ),
    ),
    log_sinks: t.Optional(LogSinksConfig),
    stored_responses: t.Optional(
      t.Object(
        {
          enabled: t.Optional(t.Boolean({ description: "Keep responses (default true)." })),
          retention_days: t.Optional(t.Integer({ minimum: 1, description: "Days a response is kept (default 30)." })),
        },
        { additionalProperties: false, description: "Responses the gateway writes for providers without a Responses API. Changeable while running with PUT /api/config." },
      ),
    ),
    mcp: t.Optional(McpSettings),
    resumable_streams: t.Optional(
      t.Object(
        {
          retention_seconds: t.Optional(t.Integer({ minimum: 1, maximum: 2_592_000, description: "Seconds an ended stream stays readable (default 3600)." })),
          max_stream_bytes: t.Optional(t.Integer({ minimum: 1024, maximum: 2 ** 31 - 1, description: "Bytes of events kept per stream (default 8 MiB); a stream past it goes on for the readers following it, keeps no more, and ends `failed`." })),
          max_reader_lag_bytes: t.Optional(t.Integer({ minimum: 1024, maximum: 2 ** 31 - 1, description: "Bytes a reader of a stream (its first client included) may leave unread before it is dropped with an error event; it can resume after the last event it read (default twice max_stream_bytes)." })),
          max_total_bytes: t.Optional(t.Integer({ minimum: 1024, maximum: Number.MAX_SAFE_INTEGER, description: "Bytes of events kept for every stream together (default 512 MiB); past it, the oldest ended streams are removed." })),
          flush_interval_ms: t.Optional(t.Integer({ minimum: 10, maximum: 60_000, description: "How long a stream's events gather before they are written in one batch (default 200)." })),
          follow_interval_ms: t.Optional(t.Integer({ minimum: 10, maximum: 60_000, description: "How often a reader on a node that does not hold the stream looks for its new events (default 1000)." })),
        },
        { additionalProperties: false, description: "Streams kept with `x-gw-resumable: true`, resumed with GET /v1/streams/{id}." },
      ),
    ),
    async_inference: t.Optional(
      t.Object(
        { max_concurrent_jobs: t.Optional(t.Integer({ minimum: 1, description: "How many jobs run at once on this node (default 64); the rest wait as `pending`." })) },
        { additionalProperties: false, description: "/v1/async jobs." },
      ),
    ),
    actors: t.Optional(
      t.Object(
        {
          record_transitions: t.Optional(t.Boolean({ description: "Record every transition of every durable actor (default true): GET /api/actors/{kind}/{id} and the live stream show them." })),
          history_retention_days: t.Optional(t.Integer({ minimum: 1, maximum: 3650, description: "Days an ended actor's transitions are kept (default 7)." })),
        },
        { additionalProperties: false, description: "The durable actors' transition history (docs/lifecycles.md)." },
      ),
    ),
    inspect: t.Optional(
      t.Object(
        { websocket_url: t.Optional(t.String({ pattern: "^wss?://", description: "Stately's WebSocket inspector to report every actor to; off when unset. GATEWAY_INSPECT_URL wins." })) },
        { additionalProperties: false, description: "Live inspection of the actors with Stately's inspector." },
      ),
    ),
  },
  { additionalProperties: false },
);
export type GatewayConfig = Static<typeof GatewayConfig>;
