import { type Static, Type as t } from "@sinclair/typebox";
import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import type { Database } from "../db/client";
import { FailureStreak } from "../db/failure-streak";
import { gatewayMeta } from "../db/schema";
import { CHANGE_CHECK_MS } from "../db/table-changes";
import { badRequest } from "../http/errors";
import { replies } from "../http/replies";
import { DEFAULT_REFUSED_REQUEST_LOGGING, RefusedRequestLogging } from "./sections/refused-requests";
import { DEFAULT_RETENTION_DAYS } from "../responses/store";
import type { GatewayConfig } from "./schema";

const days = t.Integer({ minimum: 1 });

/**
 * The settings `PUT /api/config` changes while the gateway runs; each is read per use. A field
 * left out stays as it is; `retention_days: null` keeps logs forever.
 */
export const RuntimeSettingsUpdate = t.Object(
  {
    enforce_auth_on_inference: t.Optional(t.Boolean()),
    logs_store: t.Optional(
      t.Object(
        { content_logging: t.Optional(t.Boolean()), retention_days: t.Optional(t.Union([days, t.Null()])), refused_requests: t.Optional(RefusedRequestLogging) },
        { additionalProperties: false },
      ),
    ),
    stored_responses: t.Optional(t.Object({ enabled: t.Optional(t.Boolean()), retention_days: t.Optional(days) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type RuntimeSettingsUpdate = Static<typeof RuntimeSettingsUpdate>;

/** What GET and PUT /api/config answer: the settings in force, config.json's with the changes over them. */
export const RuntimeSettings = t.Object(
  {
    edition: t.Union([t.Literal("oss"), t.Literal("enterprise")]),
    enforce_auth_on_inference: t.Boolean({ description: "Whether inference calls need a virtual key." }),
    logs_store: t.Object({
      content_logging: t.Boolean({ description: "Whether request and response bodies are kept in the logs." }),
      retention_days: t.Union([t.Integer(), t.Null()], { description: "`null`: logs are kept forever." }),
      refused_requests: RefusedRequestLogging,
    }),
    stored_responses: t.Object({ enabled: t.Boolean(), retention_days: t.Integer() }),
  },
  { title: "RuntimeSettings", description: "The settings the gateway runs with; those PUT /api/config changes are in force on every node within seconds." },
);

const META_KEY = "runtime_settings";

/** The running config's settings: config.json's (`seeded`) with the changes over them. Every reader consults the config per use. */
function apply(config: GatewayConfig, seeded: GatewayConfig, changes: RuntimeSettingsUpdate): void {
  config.enforce_auth_on_inference = changes.enforce_auth_on_inference ?? seeded.enforce_auth_on_inference;
  const { retention_days: retention, ...logs } = changes.logs_store ?? {};
  config.logs_store = { ...seeded.logs_store, ...logs, ...(retention !== undefined ? { retention_days: retention ?? undefined } : {}) };
  config.stored_responses = { ...seeded.stored_responses, ...changes.stored_responses };
}

/** Two partial updates as one, the later's fields winning. */
const merged = (earlier: RuntimeSettingsUpdate, later: RuntimeSettingsUpdate): RuntimeSettingsUpdate => ({
  ...earlier,
  ...later,
  ...(earlier.logs_store || later.logs_store ? { logs_store: { ...earlier.logs_store, ...later.logs_store } } : {}),
  ...(earlier.stored_responses || later.stored_responses ? { stored_responses: { ...earlier.stored_responses, ...later.stored_responses } } : {}),
});

/**
 * GET/PUT /api/config: the settings the gateway runs with, and the ones that change while it
 * runs. Changes are kept in the database over config.json's values (config.json still sets what
 * was never changed), survive a restart, and reach the other nodes within seconds.
 */
export async function createRuntimeSettings(db: Database, config: GatewayConfig, openingRefusal: () => string | undefined = () => undefined) {
  const seeded = structuredClone(config);
  let changes: RuntimeSettingsUpdate = {};

  const reload = async () => {
    const row = await db.select({ value: gatewayMeta.value }).from(gatewayMeta).where(eq(gatewayMeta.key, META_KEY)).get();
    const stored = row ? (JSON.parse(row.value) as RuntimeSettingsUpdate) : {};
    if (JSON.stringify(stored) === JSON.stringify(changes)) return;
    changes = stored;
    apply(config, seeded, changes);
  };
  await reload();
  // Another node may change them: read again as often as the other shared tables are checked.
  const failures = new FailureStreak("reading the runtime settings");
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= reload()
      .then(() => failures.succeeded(), (error) => failures.failed(error))
      .finally(() => (running = undefined));
  }, CHANGE_CHECK_MS);
  timer.unref();

  const view = () => ({
    edition: config.edition ?? "oss",
    enforce_auth_on_inference: config.enforce_auth_on_inference === true,
    logs_store: {
      content_logging: config.logs_store?.content_logging ?? true,
      retention_days: config.logs_store?.retention_days ?? null,
      refused_requests: config.logs_store?.refused_requests ?? DEFAULT_REFUSED_REQUEST_LOGGING,
    },
    stored_responses: { enabled: config.stored_responses?.enabled !== false, retention_days: config.stored_responses?.retention_days ?? DEFAULT_RETENTION_DAYS },
  });

  const update = async (update: RuntimeSettingsUpdate) => {
    const refusal = update.enforce_auth_on_inference === false ? openingRefusal() : undefined;
    if (refusal) throw badRequest(refusal, "enforce_auth_on_inference", "caller_open_inference_refused");
    const next = merged(changes, update);
    const value = JSON.stringify(next);
    await db.insert(gatewayMeta).values({ key: META_KEY, value }).onConflictDoUpdate({ target: gatewayMeta.key, set: { value } });
    changes = next;
    apply(config, seeded, changes);
  };

  return {
    routes: new Elysia({ name: "runtime-settings" })
      .get("/api/config", view, replies({ 200: RuntimeSettings }, { summary: "Get the runtime settings" }))
      .put(
        "/api/config",
        async ({ body }) => {
          await update(body);
          return view();
        },
        { body: RuntimeSettingsUpdate, ...replies({ 200: RuntimeSettings }, { summary: "Change the runtime settings", description: "Fields left out stay as they are; the change is stored, survives a restart and reaches the other nodes within seconds." }) },
      ),
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
