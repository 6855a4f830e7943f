import { Type as t } from "@sinclair/typebox";

/** `bun src/main.ts --port 8080 --host 0.0.0.0 --config config.json`: each wins over its variable and config.json. */
export const CommandLineFlags = t.Object({
  port: t.Optional(t.String({ description: "Listening port (default 8080). Wins over PORT and `server.port`." })),
  host: t.Optional(t.String({ description: "Listening address (default 127.0.0.1). Wins over HOST and `server.host`." })),
  workers: t.Optional(t.String({ description: "Gateway processes serving the port (default 1): see `server.workers`, which it wins over." })),
  config: t.Optional(t.String({ description: "Path of config.json, validated at start (exit code 2 naming the bad field). Wins over GATEWAY_CONFIG." })),
});

/** Every environment variable the gateway reads; a test holds the source to this list. */
export const EnvironmentVariables = t.Object({
  PORT: t.Optional(t.String({ description: "Listening port (default 8080); wins over `server.port`." })),
  HOST: t.Optional(t.String({ description: "Listening address (default 127.0.0.1; the Docker image sets 0.0.0.0); wins over `server.host`." })),
  GATEWAY_CONFIG: t.Optional(t.String({ description: "Path of config.json." })),
  GATEWAY_DB_URL: t.Optional(t.String({ description: "libSQL URL (default `file:./data/gateway.db`): a file, or a libSQL server (`libsql://…`, `http://…`); wins over `database.url`." })),
  GATEWAY_DB_AUTH_TOKEN: t.Optional(t.String({ description: "The libSQL server's token (the primary's, for an embedded replica); wins over `database.auth_token`." })),
  GATEWAY_DB_SYNC_URL: t.Optional(
    t.String({ description: "The primary an embedded replica syncs from (`libsql://…`, `http(s)://…`), with GATEWAY_DB_URL a local `file:` path; wins over `database.sync_url`." }),
  ),
  GATEWAY_DB_SYNC_INTERVAL: t.Optional(t.String({ description: "Seconds between an embedded replica's syncs (default 1); wins over `database.sync_interval_seconds`." })),
  GATEWAY_REGION: t.Optional(t.String({ description: "This node's region, stored on every request-log and MCP log row and reported by /health." })),
  GATEWAY_ENCRYPTION_KEY: t.Optional(
    t.String({ description: "Key for secrets at rest (provider keys, webhook secrets). Without it a random key is generated once and kept in the database: set it to keep the two apart." }),
  ),
  GATEWAY_SETUP_TOKEN: t.Optional(t.String({ description: "The setup lock's token; wins over `setup_token`. Generated and printed at first start when neither is set." })),
  GATEWAY_ALLOW_OPEN_INFERENCE: t.Optional(t.String({ description: "`true`: the same as `allow_open_inference: true`." })),
  GATEWAY_AUDIT_SIGNING_KEY: t.Optional(t.String({ description: "HMAC key of the audit log's signatures (generated and kept in the database when absent)." })),
  GATEWAY_METRICS_TOKEN: t.Optional(t.String({ description: "Bearer token that opens GET /metrics; wins over `telemetry.metrics_token`." })),
  GATEWAY_LOG_JOURNAL_DIR: t.Optional(
    t.String({ description: "Folder of the request logs' crash journal. Default: beside an embedded database file; none on a libSQL server unless set (a folder of the node's own that outlives it)." }),
  ),
  GATEWAY_WORKER: t.Optional(t.String({ description: "Set by the gateway on the processes it starts for `server.workers` (their number, from 1); not to be set by hand." })),
  GATEWAY_NODE_ID: t.Optional(t.String({ description: "This node's name when several share one database (default: the host name); a node restarted under the same name takes its durable jobs straight back." })),
  GATEWAY_ACTOR_LEASE_SECONDS: t.Optional(
    t.String({
      description:
        "How long a node's claim on a durable actor (an async job, a webhook delivery) holds without renewal (default 30, fractions allowed); a node killed mid-job leaves its jobs to the others for this long. Renewed every third of it: shorter means quicker takeover for more database writes.",
    }),
  ),
  GATEWAY_INSPECT_URL: t.Optional(t.String({ description: "Stately's WebSocket inspector to report every actor to (`ws://…`); wins over `inspect.websocket_url`." })),
  GATEWAY_CHECK_REPLIES: t.Optional(
    t.String({ description: "`1`: check every reply a route declares against its schema, a mismatch answered as a 500 (the tests set it; it costs each management reply a check)." }),
  ),
  GATEWAY_BUSY_TIMEOUT_MS: t.Optional(
    t.String({ description: "For tests that hold a database file's lock on purpose: how long a connection waits for another's lock before failing (default 5000 ms)." }),
  ),
  GATEWAY_STREAM_PHASES_FILE: t.Optional(
    t.String({ description: "For `bench/stream-phases.ts` only: a file each relayed stream's phases (upstream headers, first bytes, relays, settled) are written to as JSON when the gateway exits." }),
  ),
  GATEWAY_URL: t.Optional(t.String({ description: "For `npm run actors` only: the gateway it asks (default `http://127.0.0.1:8080`)." })),
  GATEWAY_API_KEY: t.Optional(t.String({ description: "For `npm run actors` only: a management API key it sends (else GATEWAY_SETUP_TOKEN)." })),
  AZURE_AUTHORITY_HOST: t.Optional(t.String({ description: "Azure's sign-in authority for Entra ID keys (default: the public cloud's login.microsoftonline.com), for sovereign clouds." })),
  BUN_CONFIG_MAX_HTTP_REQUESTS: t.Optional(
    t.String({ description: "How many upstream calls Bun's fetch makes at once (`npm start` and the Docker image set 65336, its most; Bun's own default is 256): past it, calls wait for one to finish, so a gateway holding 256 streams would stall the next client." }),
  ),
  BUN_JSC_forceRAMSize: t.Optional(
    t.String({ description: "The RAM, in bytes, Bun's JavaScriptCore sizes its heap by (`npm start` and the Docker image set 1073741824): a container's host RAM would let garbage pile up. A sizing hint, not a limit." }),
  ),
});
