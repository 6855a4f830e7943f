import { Elysia } from "elysia";
import type { Clock } from "../../actors/runtime/clock";
import type { Database } from "../db/client";
import { governanceComplexity, governanceCustomers, governancePricingOverrides, governanceRoutingRules, governanceTeams, governanceVirtualKeys } from "../db/schema";
import { reloadOnChange } from "../db/table-changes";
import type { Inference, PricedReply } from "../inference/handle";
import type { ServedModel } from "../inference/model-ref";
import { priceVariant } from "../inference/billed-units";
import { REQUEST_TYPE } from "../upstream/operations";
import type { ProviderStore } from "../provider-registry/store";
import { mayUse } from "./access-policy";
import { governanceHook } from "./admission";
import { actingCaller, authenticateCaller } from "./caller";
import { type ReadVideo, readUnreadVideos } from "./limits/unread-videos";
import { QuotaSlices } from "./limits/quota-slices";
import type { LimitCounters } from "./limits/limit-counters";
import { UsageCounters } from "./limits/usage-counters";
import { SessionSpend } from "./limits/session-spend";
import { VideoCharges } from "./limits/video-charges";
import { PriceBook } from "./pricing/price-book";
import { deprecatedTeamRoutes, organizationRoutes } from "./routes/organization";
import { pricingOverrideRoutes } from "./routes/pricing-overrides";
import { routingRuleRoutes } from "./routes/routing-rules";
import { usageRoutes } from "./routes/usage";
import { complexityRoutes } from "./routes/complexity";
import { ConversationFloor } from "./complexity/conversation-floor";
import { ComplexityStore } from "./complexity/store";
import { pipelineAsker } from "./complexity/pipeline-asker";
import { budgetUsage, everyLimit } from "./limits/usage-report";
import { virtualKeyRoutes } from "./routes/virtual-keys";
import type { ForecastsOf } from "./routes/forecasts";
import { Organization } from "./stores/organization";
import { PricingOverrideStore } from "./stores/pricing-overrides";
import { RoutingRuleStore } from "./stores/routing-rules";
import { VirtualKeyStore } from "./stores/virtual-keys";

export interface GovernanceOptions {
  db: Database;
  providers: ProviderStore;
  /** `enforce_auth_on_inference`: every inference request needs a virtual key. */
  requireVirtualKey: () => boolean;
  /** Milliseconds since the epoch; budget and rate-limit windows are measured by it. */
  clock?: () => number;
  /** How often changed usage counters are written to the database. */
  flushIntervalMs?: number;
  /** How often the entities are checked for changes another node made. */
  reloadIntervalMs?: number;
  /** Whether other nodes share the database: limits are then served from slices claimed from it. */
  sharedDatabase?: boolean;
  /** The counters of a worker of `server.workers`, kept by the first process; by default this process's own, saved to the database. */
  counters?: LimitCounters;
  /** The pipeline, for a complexity classifier model's calls; without it none is asked. */
  inference?: () => Inference;
  /** Whether other processes (the workers of `server.workers`) charge sessions on the same database file. */
  sharedSessions?: boolean;
  /** The budgets' projected exhaustion, which the team, customer and key replies carry; without it they carry none. */
  forecasts?: ForecastsOf;
}

/**
 * Virtual keys, teams, customers, budgets, rate limits, routing rules and pricing. `hook` goes
 * first among the inference hooks, `price` prices every reply, `routes` serves
 * /api/governance/*, and `close()` writes the usage counters still in memory. The stores it
 * returns let other areas (A2A agent grants) authenticate virtual keys the same way.
 */
export async function createGovernance({ db, providers, requireVirtualKey, clock = Date.now, flushIntervalMs = 1_000, reloadIntervalMs, sharedDatabase = false, counters: workerCounters, sharedSessions = false, inference, forecasts = async () => [] }: GovernanceOptions) {
  const organization = new Organization(db);
  const virtualKeys = new VirtualKeyStore(db, organization, providers);
  const rules = new RoutingRuleStore(db, { providers, organization, virtualKeys });
  const overrides = new PricingOverrideStore(db, { providers, virtualKeys });
  const complexity = new ComplexityStore(db, providers);
  const keptCounters = workerCounters ? undefined : new UsageCounters(db, clock);
  const counters: LimitCounters = workerCounters ?? keptCounters!;
  const slices = sharedDatabase ? new QuotaSlices(db, clock) : undefined;
  const loadEntities = async () => {
    await organization.load();
    await virtualKeys.load();
    await rules.load();
    await overrides.load();
    await complexity.load();
  };
  // Another node on the same database may change any of these; this node then reads them again.
  const watched = reloadOnChange(
    db,
    [governanceCustomers, governanceTeams, governanceVirtualKeys, governanceRoutingRules, governancePricingOverrides, governanceComplexity],
    loadEntities,
    reloadIntervalMs,
  );
  await loadEntities();
  await counters.load();
  counters.startFlushing(flushIntervalMs);
  slices?.startReturning(flushIntervalMs);
  const prices = new PriceBook(overrides, providers);
  const sessions = new SessionSpend(sharedDatabase || sharedSessions ? db : undefined);
  const floor = new ConversationFloor();

  const routes = new Elysia({ name: "governance-routes" })
    .use(deprecatedTeamRoutes(organization, virtualKeys))
    .group("/api/governance", (app) =>
      app
        .use(virtualKeyRoutes(virtualKeys, organization, counters, sessions, forecasts))
        .use(organizationRoutes(organization, virtualKeys, forecasts))
        .use(usageRoutes(organization, virtualKeys, counters))
        .use(routingRuleRoutes(rules))
        .use(complexityRoutes(complexity))
        .use(pricingOverrideRoutes(overrides)),
    );

  const videoCharges = new VideoCharges(db, counters, clock, slices);

  return {
    hook: governanceHook({ providers, virtualKeys, organization, rules, counters, prices, clock, requireVirtualKey, videoCharges, slices, sessions, complexity, floor, askModel: inference && pipelineAsker(inference) }),
    price: ({ target, keyId, usage, units, context }: PricedReply) =>
      prices.costOf(
        { provider: target.provider, model: target.model, variant: priceVariant(context.operation, context.body, units), requestType: REQUEST_TYPE[context.operation], keyId, virtualKeyId: context.caller?.virtualKeyId },
        { usage, units },
      ),
    routes,
    modelsVisibleTo(headers: Headers): (model: ServedModel) => boolean {
      const caller = authenticateCaller(headers, virtualKeys, organization, requireVirtualKey());
      return caller ? (model) => mayUse(caller, model) : () => true;
    },
    /** Which models a request run as this virtual key (the dashboard's playground) may use. */
    modelsUsableBy(virtualKeyId: string): (model: ServedModel) => boolean {
      const caller = actingCaller(virtualKeyId, virtualKeys, organization);
      return (model) => mayUse(caller, model);
    },
    /** Reads, on `clock`'s schedule, the videos whose held charges no client's read has ended (see unread-videos.ts). */
    readUnreadVideos: (read: ReadVideo, actorClock: Clock) => readUnreadVideos(videoCharges, read, actorClock),
    async close() {
      await watched.stop();
      await slices?.close().catch((error) => console.error("governance: unused quota could not be given back", error));
      await counters.close();
    },
    // What other areas check virtual keys with (agent grants, MCP configs): they read, governance writes.
    virtualKeys,
    organization,
    routingRules: rules,
    counters,
    /** Every budget with its current window's usage, as GET /api/governance/budgets answers it. */
    budgets: () => budgetUsage(everyLimit(organization, virtualKeys), counters),
    /** The counters this process keeps and saves; undefined in a worker of `server.workers`, which asks the first process. */
    keptCounters,
    clock,
    requireVirtualKey,
  };
}

export type Governance = Awaited<ReturnType<typeof createGovernance>>;
