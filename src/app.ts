import { type AnyElysia, Elysia } from "elysia";
import { type Clock, systemClock } from "../actors/runtime/clock";
import type { ActorMachines } from "../actors/machines";
import { KeyBreakers } from "./provider-registry/key-breakers";
import { type ActorLease, ActorSnapshotStore, DEFAULT_LEASE_MS, defaultLease } from "../actors/runtime/snapshot-store";
import { createAgentGateway, governanceAgentAccess } from "./a2a";
import { createAccessControl } from "./access";
import { createAsyncInference } from "./async";
import { createResponseCache } from "./cache";
import { ConfigError, secondsVariable } from "./config/load";
import type { GatewayConfig } from "./config/schema";
import { DEFAULT_ENV_ALLOWLIST, EnvReferences } from "./config/env-reference";
import { createRuntimeSettings } from "./config/runtime-settings";
import { seedFromConfig } from "./provider-registry/seed";
import { secretBoxFor } from "./crypto/secret-box";
import { openDatabase } from "./db/client";
import { STOP_GRACE_MS } from "./db/write-retries";
import { createGovernance } from "./governance";
import type { LimitCounters } from "./governance/limits/limit-counters";
import { createGuardrails } from "./guardrails";
import { authenticateCaller, callerIdentity } from "./governance/caller";
import { catalogFacts, catalogOutputLimit } from "./governance/pricing/catalog";
import { corsPolicy } from "./http/cors";
import { bodyLimit, DEFAULT_MAX_REQUEST_BODY_MB, serverBodyLimitBytes } from "./http/body-limit";
import { errorHandling, type RefusalListener } from "./http/error-handler";
import { openApiRoutes } from "./openapi/routes";
import { type Exposure, needsAChoice, openingRefusal, startRefusal } from "./protected-mode";
import { DEFAULT_BODY_TIMEOUT_SECONDS, DEFAULT_MAX_JSON_DEPTH, requestBodies } from "./http/request-bodies";
import { requestPath } from "./http/request-path";
import { servedRequestsNeverIdle } from "./http/served-requests";
import type { Serving } from "./http/serving";
import { systemRoutes } from "./http/system-routes";
import { batchOperation } from "./inference/batches/operation";
import { backgroundResponseOperation } from "./inference/kept-responses/background-runs";
import { storedResponsesOperation } from "./inference/kept-responses/operation";
import { DeferredSettlements } from "./inference/deferred-settlements";
import { type Inference, settledByPipeline } from "./inference/handle";
import { inferenceMounts, MOUNT_ROOTS } from "./inference/mounts";
import { ObjectKeys } from "./inference/kept-objects/object-keys";
import { keptObjectsOperation } from "./inference/kept-objects/operation";
import { BUILT_IN_PROVIDERS } from "./inference/providers/catalog";
import { videoReader } from "./inference/videos/reads";
import { createConversations } from "./conversations";
import { conversationOperation } from "./conversations/operation";
import { createStoredResponses } from "./responses";
import { createPrompts } from "./prompts";
import { markInternal } from "./http/internal-requests";
import { createRequestLogs } from "./logs";
import { DEFAULT_REFUSED_REQUEST_LOGGING } from "./config/sections/refused-requests";
import { LiveFeed } from "./logs/live-feed";
import { liveFeedRoutes } from "./logs/live-routes";
import { createLifecycles } from "./lifecycles";
import { stately } from "./lifecycles/stately-inspector";
import { createMcpGateway, resolveMcpSettings } from "./mcp";
import type { OAuthAuditEvent } from "./mcp/oauth/connections";
import { builtinFromHooks, createPlugins, type HostResolver } from "./plugins";
import { reloadProvidersOnChange } from "./provider-registry/changes";
import { providerRoutes } from "./provider-registry/routes";
import type { RuntimeProvider } from "./provider-registry/runtime";
import { ProviderStore } from "./provider-registry/store";
import { warnOfUnsetKeyVariables } from "./provider-registry/unresolved-keys";
import { configureSinks, createLogSinks } from "./sinks";
import { createTelemetry } from "./telemetry";
import { dashboardRoutes } from "./ui/routes";
import { createWarp } from "./warp";
import { playgroundRoutes } from "./playground/routes";
import { createWebhooks } from "./webhooks";
import { createAlerts } from "./alerts";
import { createResumableStreams } from "./streams";
import { systemResolver } from "./outbound/host-check";
import type { OutboundReach } from "./outbound/reach";

export interface GatewayOptions {
  config: GatewayConfig;
  /** libSQL URL: `file:...` for the embedded database, `libsql://` or `http://` for a server. */
  databaseUrl: string;
  env?: Record<string, string | undefined>;
  /** Milliseconds since the epoch, for budget and rate-limit windows; tests move it. */
  clock?: () => number;
  /** Name resolution for every outbound call (the address policy checks what it answers); tests point names anywhere. */
  resolveHost?: HostResolver;
  /** Time and timers of the durable actors (job result ttls, delivery retries); tests pass a simulated clock. */
  actorClock?: Clock;
  /** This node's claim on the durable actors it runs; by default GATEWAY_NODE_ID or an id unique to this process, for GATEWAY_ACTOR_LEASE_SECONDS (30 s) at a time. */
  actorLease?: ActorLease;
  /** Machines to run in place of those in actors/, by kind: a test sees a changed machine described and run. */
  actorMachines?: Partial<ActorMachines>;
  /** In a worker of `server.workers`: the budget and rate-limit counters the first process keeps for all workers. */
  limitCounters?: LimitCounters;
  /** With `server.workers`: the processes charge session budgets on their one database file. */
  sharedSessions?: boolean;
}

const DEFAULT_IDLE_TIMEOUT_SECONDS = 30;
/** How long a stop waits for the calls it cut to settle; they abort at once, unless stuck elsewhere. */
const CUT_CALLS_SETTLE_MS = 2_000;

/** A step of the stop that fails (the database locked past its busy timeout) is reported, and the steps after it, the request logs' last batch among them, still run. */
const reportStopFailure = (step: string) => (error: unknown) => console.error(`gateway stop: ${step} failed: ${error instanceof Error ? error.message : String(error)}`);
/** The inference surfaces, where every request answers to a virtual key (`enforce_auth_on_inference`). */
const INFERENCE_ROOTS = ["/v1/", ...MOUNT_ROOTS.map((root) => `${root}/`)];
const isInferencePath = (request: Request) => INFERENCE_ROOTS.some((root) => requestPath(request).startsWith(root));

/** The composition root: stores, registries and route plugins, read top to bottom. */
export async function createGateway({ config: givenConfig, databaseUrl, env = process.env, clock, resolveHost, actorClock = systemClock, actorLease, actorMachines, limitCounters, sharedSessions }: GatewayOptions) {
  // The gateway's own copy: PUT /api/config changes it while it runs.
  const config = structuredClone(givenConfig);
  // A sink's filter or fields that do not hold stop the start before anything opens.
  const sinkConfigs = await configureSinks(config.log_sinks ?? [], actorClock, env);
  const databaseLocation = { url: databaseUrl, authToken: config.database?.auth_token, syncUrl: config.database?.sync_url, syncIntervalSeconds: config.database?.sync_interval_seconds };
  const database = await openDatabase(databaseLocation);
  const secrets = await secretBoxFor(database.db, env.GATEWAY_ENCRYPTION_KEY);
  // Every durable actor's writes: one group commit, one lease, one retry count.
  const inspector = stately(env.GATEWAY_INSPECT_URL || config.inspect?.websocket_url);
  const leaseSeconds = secondsVariable("GATEWAY_ACTOR_LEASE_SECONDS", env.GATEWAY_ACTOR_LEASE_SECONDS);
  const snapshots = new ActorSnapshotStore(database.db, actorLease ?? defaultLease(env, databaseUrl, leaseSeconds === undefined ? DEFAULT_LEASE_MS : leaseSeconds * 1000), {
    machines: actorMachines,
    recordTransitions: () => config.actors?.record_transitions !== false,
    inspect: inspector?.inspect,
  });
  await snapshots.join();
  const lifecycles = createLifecycles({ db: database.db, snapshots, clock: actorClock, retentionDays: () => config.actors?.history_retention_days });
  const outbound: OutboundReach = { resolve: resolveHost ?? systemResolver, configAllowsPrivate: config.network?.allow_private_addresses === true };
  const envReferences = new EnvReferences(config.env_references?.allow ?? DEFAULT_ENV_ALLOWLIST);
  // Provider keys and MCP clients read the live environment at each use; the rest read the one given.
  const readLiveEnv = envReferences.readerFor(process.env);
  const readEnv = envReferences.readerFor(env);
  const keyBreakers = new KeyBreakers(database.db, snapshots, actorClock);
  const providers = new ProviderStore(database.db, secrets, readLiveEnv, outbound, keyBreakers, BUILT_IN_PROVIDERS);
  const providerChanges = reloadProvidersOnChange(database.db, providers);
  await providers.load();
  await keyBreakers.start();
  await seedFromConfig(database.db, config, providers);
  // Where listen() put the gateway: reachable by others, inference stays closed unless that was chosen.
  let exposure: Exposure | undefined;
  warnOfUnsetKeyVariables(providers.list(), "gateway start");
  // Before anything reads the settings: what PUT /api/config changed applies from the start.
  const runtimeSettings = await createRuntimeSettings(database.db, config, () => (exposure && needsAChoice(exposure, false) ? openingRefusal(exposure.host) : undefined));
  const requestLogs = createRequestLogs(database.db, {
    threads: { url: databaseUrl, authToken: config.database?.auth_token, syncUrl: databaseLocation.syncUrl },
    contentLogging: () => config.logs_store?.content_logging ?? true,
    refusedRequests: () => config.logs_store?.refused_requests ?? DEFAULT_REFUSED_REQUEST_LOGGING,
    retentionDays: () => config.logs_store?.retention_days,
    journalDir: env.GATEWAY_LOG_JOURNAL_DIR || undefined,
    region: env.GATEWAY_REGION || undefined,
  });
  const governance = await createGovernance({ db: database.db, providers, requireVirtualKey: () => config.enforce_auth_on_inference === true, clock, sharedDatabase: database.mode !== "embedded_file", counters: limitCounters, sharedSessions, inference: () => inference, forecasts: (wanted) => alerts.forecasts(wanted) });
  const telemetry = createTelemetry({ db: database.db, config: config.telemetry, env, logQueue: requestLogs.queueStatus });
  // Access control comes after MCP, whose OAuth connections it audits.
  const mcpAudit: { record?: (event: OAuthAuditEvent) => void } = {};
  const mcp = await createMcpGateway({ db: database.db, secrets, snapshots, virtualKeys: governance.virtualKeys, settings: resolveMcpSettings(config), region: env.GATEWAY_REGION || undefined, enforceAuth: () => config.enforce_auth_on_inference === true, inference: () => inference, readEnv: readLiveEnv, outbound, now: clock, audit: (event) => mcpAudit.record?.(event), onToolCall: telemetry.onToolCall, sessionUser: (request) => access.sessionUser(request) });
  const serving: Serving = { server: null };
  const access = await createAccessControl({ db: database.db, config, env, secrets, envReferences, serving });
  const responseCache = createResponseCache(database.db, () => inference);
  const guardrails = await createGuardrails({ db: database.db, inference: () => inference, outbound, readEnv, metrics: telemetry.metrics, governance });
  const plugins = await createPlugins({
    db: database.db,
    builtins: [
      builtinFromHooks("governance", governance.hook, "before-custom", true),
      builtinFromHooks("mcp", mcp.hook, "before-custom", false),
      guardrails.builtin,
      responseCache.builtin,
      builtinFromHooks("logging", requestLogs.recorder, "after-custom", false),
      telemetry.builtin,
    ],
    seeds: config.plugins,
    privateAllowlist: config.server?.plugin_download_private_allowlist,
    resolveHost,
    readEnv,
  });
  // The hooks are read per request, so plugin changes through the API apply at once.
  const settlements = new DeferredSettlements();
  const responses = createStoredResponses({
    db: database.db,
    callerOf: (headers) => authenticateCaller(headers, governance.virtualKeys, governance.organization, governance.requireVirtualKey())?.key.id,
    settings: () => config.stored_responses,
    clock,
  });
  const conversations = createConversations({ db: database.db, callerOf: responses.callerOf, clock });
  const objectKeys = new ObjectKeys(database.db, providers, clock);
  const streams = createResumableStreams({
    db: database.db,
    snapshots,
    clock: actorClock,
    settings: () => config.resumable_streams,
    checkCaller: (headers) => void authenticateCaller(headers, governance.virtualKeys, governance.organization, governance.requireVirtualKey()),
  });
  /** A custom provider is priced as the family it is built on. */
  const priceFamilyOf = (provider: RuntimeProvider) => provider.customProviderConfig?.base_provider_type ?? provider.name;
  const inference: Inference = {
    providers,
    get hooks() {
      return plugins.registry.inferenceHooks;
    },
    price: governance.price,
    outputLimit: (provider, model) => catalogOutputLimit(priceFamilyOf(provider), model),
    modelFacts: (provider, model) => catalogFacts(priceFamilyOf(provider), model),
    modelsVisibleTo: governance.modelsVisibleTo,
    settlements,
    responses,
    operations: [batchOperation, conversationOperation(conversations, providers), backgroundResponseOperation(responses), storedResponsesOperation(responses), keptObjectsOperation(objectKeys)],
    objectKeys,
    streams: streams.kept,
    // Background responses run as async jobs, which replay through the app built below.
    get background() {
      return asyncInference.backgroundResponses;
    },
  };
  const prompts = createPrompts(database.db, inference);
  inference.promptField = prompts.field;
  // A video whose create was charged and that no client reads to its end is read by the gateway itself.
  const unreadVideos = governance.readUnreadVideos(videoReader(inference), actorClock);
  const agents = await createAgentGateway({ db: database.db, secrets, snapshots, readEnv, outbound, access: governanceAgentAccess(governance) });
  const warp = createWarp({ db: database.db, reads: requestLogs.read, providers, inference: () => inference, governance, clock: clock ?? Date.now });
  requestLogs.onRowsWritten(warp.indexWrittenLogs);
  const logSinks = createLogSinks({ db: database.db, read: requestLogs.read, snapshots, clock: actorClock, sinks: sinkConfigs, secrets, reach: outbound, metrics: telemetry.metrics, onRowsWritten: requestLogs.onRowsWritten });
  telemetry.metrics.counter({
    name: "gateway_actor_write_retries_total",
    help: "Writes of durable actors (async jobs, webhook deliveries, per-user MCP flows, A2A tasks) the database did not take (busy, locked, out of reach) and that were tried again.",
    collect: () => [{ labels: {}, value: snapshots.retries }],
  });
  telemetry.metrics.counter({
    name: "gateway_refused_requests_unlogged_total",
    help: "Requests the gateway refused (4xx) before its pipeline took them and left out of the request log: past the rate refused requests are logged at (100 at once, then 20 a second per node).",
    collect: () => [{ labels: {}, value: requestLogs.refusalsDropped() }],
  });
  telemetry.metrics.gauge<"provider" | "key">({
    name: "gateway_key_breaker_state",
    labelNames: ["provider", "key"],
    help: "Each provider key's circuit breaker as this node sees it: 0 closed, 1 half-open (trial requests), 2 open (left out until its cooldown ends). A keyless provider's breaker has an empty key.",
    collect: () => keyBreakers.metricSamples(providers.list()),
  });
  telemetry.metrics.counter<"provider">({
    name: "gateway_provider_panic_requests_total",
    labelNames: ["provider"],
    help: "Requests sent while the provider was in panic (at least its `panic_threshold` share of the keys that could serve them open): spread over its open keys as if closed, except those a 429's retry-after held back.",
    collect: () => keyBreakers.panicSamples(),
  });
  const recordSystemEvent = "recordSystemEvent" in access ? access.recordSystemEvent : undefined;
  mcpAudit.record = (event) =>
    void recordSystemEvent?.({ action: event.action, target: { type: "mcp_client", id: event.mcpClientId }, summary: event.summary }).catch((error) => console.error("audit log: an event could not be written", error));
  const webhooks = await createWebhooks({
    db: database.db,
    secrets,
    snapshots,
    clock: actorClock,
    resolveHost: outbound.resolve,
    configAllowsPrivate: outbound.configAllowsPrivate,
    readEnv,
    audit: recordSystemEvent && ((entry) => recordSystemEvent({ action: entry.action, target: { type: "webhook_endpoint", id: entry.endpointId }, summary: entry.summary })),
  });
  const alerts = createAlerts({
    db: database.db,
    secrets,
    snapshots,
    clock: actorClock,
    sources: {
      read: requestLogs.read,
      budgets: governance.budgets,
      providerKeys: () => keyBreakers.openKeyCounts(providers.list()),
      disabledWebhookEndpoints: () => webhooks.endpoints.list().filter((endpoint) => endpoint.state === "disabled_automatically").length,
      now: clock ?? Date.now,
    },
    reach: outbound,
    sendToEndpoint: webhooks.sendToEndpoint,
    endpointExists: (endpointId) => webhooks.endpoints.get(endpointId) !== undefined,
    dashboardUrl: () => config.alerts?.dashboard_url,
  });
  // A job replays its request through the app itself: the same pipeline as its synchronous twin.
  const asyncInference = createAsyncInference({
    db: database.db,
    snapshots,
    secrets,
    clock: actorClock,
    run: (request) => app.handle(markInternal(request)),
    jobFinished: webhooks.jobFinished,
    hasWebhook: webhooks.hasEndpoint,
    mountRoots: ["/v1", ...MOUNT_ROOTS],
    exceptUnder: ["/v1/mcp"],
    checkCaller: (headers) => void authenticateCaller(headers, governance.virtualKeys, governance.organization, governance.requireVirtualKey()),
    maxConcurrentJobs: config.async_inference?.max_concurrent_jobs,
  });

  // The dashboard's notification socket: request logs and MCP tool calls as they are stored.
  const liveFeed = new LiveFeed([requestLogs.liveSource, mcp.liveSource]);
  // Bodies are validated as sent: Elysia's normalize would reshape a wrong value (a string into
  // an array of characters) into a valid one before the check, and store it.
  const maxRequestBodyMb = config.server?.max_request_body_mb ?? DEFAULT_MAX_REQUEST_BODY_MB;
  const bodies = requestBodies({
    maxJsonDepth: config.server?.max_json_depth ?? DEFAULT_MAX_JSON_DEPTH,
    maxBodyBytes: maxRequestBodyMb * 2 ** 20,
    bodyTimeoutMs: (config.server?.body_timeout_seconds ?? DEFAULT_BODY_TIMEOUT_SECONDS) * 1000,
    // Where the virtual key is in a header, a caller without a valid one costs no read and no parse of its body.
    beforeBody: (request) => {
      if (!isInferencePath(request)) return;
      authenticateCaller(request.headers, governance.virtualKeys, governance.organization, governance.requireVirtualKey());
    },
  });
  /** The virtual key of a request refused for its body, named on its log row; none when the key is what was refused. */
  const refusedCaller = (headers: Headers) => {
    try {
      const caller = authenticateCaller(headers, governance.virtualKeys, governance.organization, false);
      return caller && callerIdentity(caller);
    } catch {
      return undefined;
    }
  };
  // What the gateway refuses before the pipeline takes a request (credentials, a body no route
  // accepts) is logged here; the pipeline logs its own refusals (unknown model, policy).
  const logRefusal: RefusalListener = (request, refusal, thrown, body) => {
    if (refusal.errorType === "caller_route_not_found" || settledByPipeline(thrown) || !isInferencePath(request)) return;
    requestLogs.recordRefusal(request.headers, refusal, body, refusal.status === 401 ? undefined : refusedCaller(request.headers));
  };
  let draining = false;
  const app = new Elysia({ normalize: false })
    .use(errorHandling(logRefusal))
    // Ahead of the access guard: a browser's preflight carries no credential.
    .use(corsPolicy(config.cors, { inference: [...INFERENCE_ROOTS, "/mcp", "/agents/"], management: ["/api/"] }))
    .use(bodyLimit(maxRequestBodyMb))
    .use(bodies.plugin)
    .use(servedRequestsNeverIdle(serving))
    .use(access.guard)
    .use(plugins.transport)
    .use(
      systemRoutes({
        pingDatabase: database.ping,
        databaseSchema: database.schemaState,
        draining: () => draining,
        node: snapshots.lease.owner,
        region: env.GATEWAY_REGION || undefined,
        databaseMode: database.mode,
        replicaStatus: database.replicaStatus,
      }),
    )
    .use(telemetry.routes)
    .use(openApiRoutes((): AnyElysia => app))
    .use(access.routes)
    .use(runtimeSettings.routes)
    .use(providerRoutes(providers, outbound))
    .use(governance.routes)
    .use(requestLogs.routes)
    .use(logSinks.routes)
    .use(liveFeedRoutes(liveFeed, () => new Date()))
    .use(plugins.routes)
    .use(responseCache.routes)
    .use(guardrails.routes)
    .use(prompts.routes)
    .use(agents.routes)
    .use(mcp.routes)
    .use(warp.routes)
    .use(playgroundRoutes({ inference, keyExists: (id) => governance.virtualKeys.keys.get(id) !== undefined, modelsUsableBy: governance.modelsUsableBy }))
    .use(webhooks.routes)
    .use(alerts.routes)
    .use(lifecycles.routes)
    .use(asyncInference.routes)
    .use(streams.routes)
    .use(dashboardRoutes())
    .use(prompts.runRoutes)
    .use(inferenceMounts(inference));
  bodies.learnRoutes(app.routes);
  // Not awaited: the gateway serves while the rows a killed process left are stored again.
  requestLogs.recoverJournal().catch((error) => console.error("request log: recovering the crash journal failed; its rows wait for the next start", error));
  // Deliveries first: a job resumed mid-notification finds the deliveries it already made.
  await webhooks.resume();
  await asyncInference.resume();
  await logSinks.resume();
  await alerts.resume();
  await streams.resume();

  return {
    // Its route types are not read outside; kept, they grow the gateway's type past what the compiler instantiates.
    app: app as AnyElysia,
    providers,
    /** The budget and rate-limit counters this process keeps (not in a worker): the first process shares them with its workers. */
    keptCounters: governance.keptCounters,
    /**
     * Refuses (ConfigError) to listen where others can reach it with inference open, unless
     * `allowOpenInference`; from then on PUT /api/config cannot open it there either.
     */
    listen(port: number, hostname: string, { allowOpenInference = false, reusePort = false }: { allowOpenInference?: boolean; reusePort?: boolean } = {}) {
      const wanted = { host: hostname, allowOpenInference };
      if (needsAChoice(wanted, config.enforce_auth_on_inference === true)) throw new ConfigError(startRefusal(hostname));
      exposure = wanted;
      // Without reusePort (Elysia's default turns it on), a second gateway on a taken port fails
      // to start instead of silently sharing the traffic; `server.workers` share it on purpose.
      app.listen({ port, hostname, reusePort, idleTimeout: config.server?.idle_timeout_seconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS, maxRequestBodySize: serverBodyLimitBytes(maxRequestBodyMb) });
      serving.server = app.server;
      return app.server!;
    },
    /** From now on /health/ready answers 503, so load balancers send this node no new traffic; the node still serves. */
    markDraining() {
      draining = true;
    },
    /**
     * Takes no new connection and waits for the requests under way (streams and sockets included)
     * to finish, at most `graceMs` or until `cut` aborts: what a rolling deploy's SIGTERM needs
     * before `stop()`, which cuts whatever is left.
     */
    async drain(graceMs: number, cut?: AbortSignal) {
      draining = true;
      if (!app.server) return;
      mcp.endStreams();
      const over = Promise.withResolvers<void>();
      const timer = setTimeout(over.resolve, graceMs);
      cut?.addEventListener("abort", () => over.resolve(), { once: true });
      await Promise.race([app.server.stop(false), over.promise]);
      clearTimeout(timer);
    },
    async stop() {
      snapshots.giveUpAfter(STOP_GRACE_MS);
      liveFeed.close();
      if (app.server) await app.stop(true);
      // Before the cut calls settle: a kept stream's upstream call outlives its client, not the gateway.
      await streams.stop().catch(reportStopFailure("handing back the kept streams"));
      // Cut, the calls still running abort upstream and settle: their rows and charges go in before the logs close.
      await settlements.cutSettled(CUT_CALLS_SETTLE_MS);
      await unreadVideos.stop();
      // Before the logs close: the agent stops indexing, its backfill and its retention sweep.
      await warp.stop();
      await asyncInference.stop().catch(reportStopFailure("stopping async jobs"));
      await alerts.stop().catch(reportStopFailure("stopping alerts"));
      await webhooks.stop().catch(reportStopFailure("stopping webhooks"));
      await logSinks.stop().catch(reportStopFailure("stopping log sinks"));
      await lifecycles.stop().catch(reportStopFailure("stopping lifecycles"));
      inspector?.stop();
      // What finished before the stop is logged and charged before the hooks close.
      settlements.drain();
      await responses.close();
      await plugins.close();
      await guardrails.close();
      await requestLogs.close();
      await telemetry.close();
      await governance.close();
      await providerChanges.stop();
      await keyBreakers.stop();
      await runtimeSettings.stop();
      await mcp.close().catch(reportStopFailure("closing MCP"));
      await agents.close().catch(reportStopFailure("closing A2A agents"));
      await snapshots.leave().catch((error) => console.error(`handing the node id back failed: ${(error as Error).message}`));
      database.close();
    },
  };
}

export type Gateway = Awaited<ReturnType<typeof createGateway>>;
