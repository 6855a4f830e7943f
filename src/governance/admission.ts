import type { Usage } from "../inference/canonical";
import type { InferenceHooks, InferenceOutcome, RequestContext } from "../inference/hooks";
import type { ModelRef } from "../inference/model-ref";
import { REQUEST_TYPE, spends } from "../upstream/operations";
import type { VideoState } from "../inference/videos/state";
import type { ProviderStore } from "../provider-registry/store";
import { allowedKeyIdsOf, assertPinnedKeyAllowed, assertPromptAllowed, assertTargetsAllowed, forbiddenKey } from "./access-policy";
import { actingCaller, authenticateCaller, type Caller, callerIdentity } from "./caller";
import type { AppliedLimit } from "./limits/applied-limits";
import { organizationLimits, providerConfigLimits } from "./limits/caller-limits";
import { chargeLimits, exceeded, highestUsePercent } from "./limits/enforce-limits";
import type { Reservation } from "./limits/reservations";
import { QuotaExhausted, type QuotaSlices, type SliceHold } from "./limits/quota-slices";
import { estimatedCost } from "./limits/estimate-cost";
import { estimateUsage } from "./limits/estimate-usage";
import { admitToSession, type SessionCharge } from "./limits/session-budgets";
import type { SessionSpend } from "./limits/session-spend";
import type { LimitCounters } from "./limits/limit-counters";
import type { VideoCharges } from "./limits/video-charges";
import type { PriceBook } from "./pricing/price-book";
import { classifyByModelFirst, type ComplexityDeps, complexityOf } from "./complexity/of-request";
import type { RoutingFacts } from "./routing/cel-conditions";
import { type Selection, selectTargets } from "./routing/select-targets";
import type { Organization } from "./stores/organization";
import type { RoutingRuleStore } from "./stores/routing-rules";
import type { VirtualKeyStore } from "./stores/virtual-keys";

export interface AdmissionDeps extends ComplexityDeps {
  providers: ProviderStore;
  virtualKeys: VirtualKeyStore;
  organization: Organization;
  rules: RoutingRuleStore;
  counters: LimitCounters;
  prices: PriceBook;
  clock: () => number;
  /** `enforce_auth_on_inference`. */
  requireVirtualKey: () => boolean;
  videoCharges: VideoCharges;
  /** On a database several nodes share: the slices of each limit this node serves from. */
  slices?: QuotaSlices;
  /** What each session of a key with `session_budgets` spent: on this node, or on every node sharing the database. */
  sessions: SessionSpend;
}

/** What settle needs to charge an admitted request, and the estimate it gives back first. */
interface Admitted {
  caller: Caller;
  organizationLimits: AppliedLimit[];
  reservation?: Reservation;
  sliceHold?: SliceHold;
  /** The session of a key with `session_budgets` the call is charged to as well. */
  session?: SessionCharge;
}

/**
 * What a rule's expression reads about the request. Headers, limit usage and complexity are
 * gathered only when the expression reads them: most rules test one or two facts.
 */
function routingFacts(deps: AdmissionDeps, context: RequestContext, caller: Caller | undefined, limits: readonly AppliedLimit[], target: ModelRef): RoutingFacts {
  const { counters } = deps;
  let headers: Record<string, string> | undefined;
  return {
    model: target.model,
    provider: target.provider,
    request_type: REQUEST_TYPE[context.operation],
    get headers() {
      return (headers ??= Object.fromEntries(context.headers));
    },
    metadata: context.metadata,
    virtual_key_id: caller?.key.id ?? "",
    virtual_key_name: caller?.key.name ?? "",
    team_id: caller?.team?.id ?? "",
    team_name: caller?.team?.name ?? "",
    customer_id: caller?.customer?.id ?? "",
    customer_name: caller?.customer?.name ?? "",
    get budget_used() {
      return highestUsePercent(counters, limits, "budget");
    },
    get tokens_used() {
      return highestUsePercent(counters, limits, "tokens");
    },
    get requests_used() {
      return highestUsePercent(counters, limits, "requests");
    },
    get complexity_tier() {
      return complexityOf(deps, context, caller?.key.id)?.tier ?? "";
    },
    get complexity_score() {
      return complexityOf(deps, context, caller?.key.id)?.score ?? 0;
    },
  };
}

/** The key's own restrictions, narrowed further where a routing rule pins a key. */
function allowedKeys(caller: Caller | undefined, selection: Selection): Record<string, readonly string[]> | undefined {
  const restricted = caller && allowedKeyIdsOf(caller);
  for (const [provider, [pinned]] of Object.entries(selection.pinnedKeys ?? {})) {
    if (caller && pinned && restricted?.[provider] && !restricted[provider].includes(pinned)) throw forbiddenKey(caller, pinned, "model");
  }
  return restricted || selection.pinnedKeys ? { ...restricted, ...selection.pinnedKeys } : undefined;
}

/**
 * What a call held to a budget reserves on it at admission: its input and the output it allows,
 * at the primary target's token prices. 0 when the model has no price (such a call is charged
 * after its reply only, as before budgets reserved).
 */
function reservationFor({ prices }: AdmissionDeps, context: RequestContext, caller: Caller, target: ModelRef): number {
  const priced = { provider: target.provider, model: target.model, requestType: REQUEST_TYPE[context.operation], virtualKeyId: caller.key.id };
  const price = prices.priceOf(priced);
  return price ? estimatedCost(context.body, price, prices.outputLimitOf(priced)) : 0;
}

/**
 * Checks and reserves `held` for an admitted call: from this node's slices first when nodes share
 * the database (a claim when they run short), then on the counters (in a worker of
 * `server.workers`, the first process's). `entry` is recorded once both admitted it; a refusal
 * gives back what the slices took.
 */
function admitHeld(deps: AdmissionDeps, entry: Admitted, held: readonly AppliedLimit[], spending: boolean, reserve: number, record: (entry: Admitted) => void): void | Promise<void> {
  const hold: SliceHold | undefined = deps.slices && reserve > 0 ? { amount: reserve, taken: [] } : undefined;
  const refused = (error: unknown): never => {
    deps.slices?.release(hold);
    throw error;
  };
  const admitHere = () => {
    const admitted = (reservation: Reservation | undefined) => record({ ...entry, reservation, sliceHold: hold });
    try {
      const asking = deps.counters.admit(held, deps.clock(), spending, reserve);
      return asking instanceof Promise ? asking.then(admitted, refused) : admitted(asking);
    } catch (error) {
      return refused(error);
    }
  };
  const claiming = deps.slices?.admit(held, spending, hold);
  if (!claiming) return admitHere();
  return claiming.then(admitHere, (error) => {
    if (!(error instanceof QuotaExhausted)) throw error;
    throw exceeded(error.limit, { ...deps.counters.read(error.limit), resetsAt: error.resetsAt }, deps.clock());
  });
}

/** Settling must not throw: a charge that could not be held or given back is said in the log. */
const noteFailure = (work: Promise<void>, context: RequestContext) => void work.catch((error) => console.error(`governance: the video charge of request ${context.id} could not be settled`, error));

/**
 * The governance hook, first of the pipeline's hooks: authenticates the virtual key, routes
 * (rules, then the key's provider weights), enforces the key's allowed providers, models and
 * keys, checks and reserves budgets and rate limits; after the reply, charges real usage and cost.
 */
export function governanceHook(deps: AdmissionDeps): InferenceHooks {
  const { providers, counters } = deps;
  const admitted = new WeakMap<RequestContext, Admitted>();

  /** The estimate held since admission gives way to the real cost: given back once that is charged, so the budget never shows less than both. */
  const release = (entry: Admitted) => {
    counters.release(entry.reservation);
    deps.slices?.release(entry.sliceHold);
    entry.reservation = undefined;
  };

  /** Charges the request's usage and cost on every limit it is held to, and says which those were. */
  const charge = (entry: Admitted, context: RequestContext, outcome: InferenceOutcome, usage: Usage | undefined, cost: number | undefined, costOnSlices = cost) => {
    const provider = outcome.answered?.target.provider ?? context.targets[0]?.provider;
    const limits = [...entry.organizationLimits, ...(provider ? providerConfigLimits(entry.caller, provider) : [])];
    const spent = { cost: cost ?? 0, tokens: usage?.total_tokens ?? 0 };
    chargeLimits(counters, limits, spent);
    if (entry.session) deps.sessions.charge(entry.caller.key.id, entry.session.session, spent.cost, spent.tokens, deps.clock());
    deps.slices?.spend(limits, { ...spent, cost: costOnSlices ?? 0 });
    release(entry);
    return limits;
  };

  /**
   * A video's create is charged at once, and the charge held until a read says how the video
   * ended; one that failed at once is not charged. A read that finds it made or failed (whoever
   * reads it) lets the charge go, or gives it back.
   */
  const chargeVideo = (entry: Admitted | undefined, context: RequestContext, outcome: InferenceOutcome, video: VideoState) => {
    const provider = outcome.answered?.target.provider;
    if (provider && video.status !== "pending") noteFailure(deps.videoCharges.ended(provider, video), context);
    if (!entry) return;
    const cost = video.status === "failed" ? 0 : outcome.cost;
    const held = Boolean(provider && video.status === "pending" && outcome.summary.units?.videoSeconds && cost);
    // A held charge reaches the shared claimed totals with its hold, where a refund finds it, not through this node's slices.
    const limits = charge(entry, context, outcome, outcome.summary.usage, cost, held ? 0 : cost);
    if (held) noteFailure(deps.videoCharges.hold(provider!, video, limits, cost!), context);
  };

  /** Routes the request, enforces the key's restrictions, and checks and reserves its limits. */
  const routeAndAdmit = (context: RequestContext, caller: Caller | undefined) => {
    const limits = caller ? organizationLimits(caller) : [];
    const facts = (target: ModelRef) => routingFacts(deps, context, caller, limits, target);
    const selection = selectTargets({ model: context.requestedModel, fallbacks: context.requestedFallbacks ?? [], mountProvider: context.mountProvider, caller, facts }, providers, deps.rules);
    // Recorded before any refusal below, so a refused request is logged with its caller and route.
    context.targets = selection.targets;
    if (selection.rule) context.routingRule = { id: selection.rule.id, name: selection.rule.name };
    context.routingEngine = selection.engine;
    if (caller) context.caller = callerIdentity(caller);
    context.allowedKeyIds = allowedKeys(caller, selection);
    if (!caller) return;
    assertPromptAllowed(caller, context.prompt);
    assertTargetsAllowed(caller, selection.targets);
    assertPinnedKeyAllowed(caller, context.headers.get("x-gw-api-key-id"), providers);
    const held = [...limits, ...providerConfigLimits(caller, selection.targets[0]!.provider)];
    const spending = spends(context.operation);
    const record = (entry: Admitted) => void admitted.set(context, entry);
    // Only a call held to a budget is estimated: without one, admission costs what it did.
    const reserve = spending && held.some((limit) => limit.kind === "budget") ? reservationFor(deps, context, caller, selection.targets[0]!) : 0;
    const admitWith = (session: SessionCharge | undefined) => admitHeld(deps, { caller, organizationLimits: limits, session }, held, spending, reserve, record);
    const session = spending ? admitToSession(deps, context, caller) : undefined;
    return session instanceof Promise ? session.then(admitWith) : admitWith(session);
  };

  const routedOnceClassified = (classifying: Promise<unknown>, context: RequestContext, caller: Caller | undefined) => classifying.then(() => routeAndAdmit(context, caller));

  return {
    name: "governance",
    admit(context) {
      // The deployment's own components (the dashboard agent) need no virtual key; one they present still counts.
      const caller = context.actingVirtualKeyId
        ? actingCaller(context.actingVirtualKeyId, deps.virtualKeys, deps.organization)
        : authenticateCaller(context.headers, deps.virtualKeys, deps.organization, deps.requireVirtualKey() && !context.internalCaller);
      // No key to hold to anything and no rule to route by: the targets the pipeline resolved stand, at no cost.
      if (!caller && !deps.rules.anyEnabled && context.targets.length > 0) return;
      // Only a configured classifier model makes a request wait for its tier before the rules run.
      const classifying = deps.rules.readsComplexity ? classifyByModelFirst(deps, context, caller?.key.id) : undefined;
      return classifying ? routedOnceClassified(classifying, context, caller) : routeAndAdmit(context, caller);
    },
    settle(context, outcome) {
      const entry = admitted.get(context);
      admitted.delete(context);
      if (outcome.summary.video) return chargeVideo(entry, context, outcome, outcome.summary.video);
      if (!entry) return;
      const usage = outcome.summary.usage;
      const answered = outcome.answered;
      if (usage || outcome.summary.units || !answered || context.operation === "count_tokens") return charge(entry, context, outcome, usage, outcome.cost);
      // A stream its session's budget cut is charged what the cut counted.
      const cut = entry.session?.cut;
      if (cut) return charge(entry, context, outcome, cut.usage, cut.cost);
      // No usage reported (a stream the client left early, or one sent without a usage chunk): charge an estimate.
      estimateUsage(context.body, outcome.summary.content ?? "")
        .then((estimate) => {
          const priced = { provider: answered.target.provider, model: answered.target.model, requestType: REQUEST_TYPE[context.operation], keyId: answered.keyId, virtualKeyId: entry.caller.key.id };
          charge(entry, context, outcome, estimate, deps.prices.costOf(priced, { usage: estimate }));
        })
        .catch((error) => {
          release(entry);
          console.error(`governance: request ${context.id} could not be charged`, error);
        });
    },
  };
}
