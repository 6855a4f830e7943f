import { eq } from "drizzle-orm";
import { type Actor, createActor, type Snapshot } from "xstate";
import { type BreakerPolicy, type KeyBreakerInput, keyBreakerMachine, type KeyBreakerState } from "../../actors/key-breaker";
import type { Clock } from "../../actors/runtime/clock";
import type { ActorSnapshotStore } from "../../actors/runtime/snapshot-store";
import type { Database } from "../db/client";
import { FailureStreak } from "../db/failure-streak";
import { actorSnapshots } from "../db/schema";
import { CHANGE_CHECK_MS } from "../db/table-changes";
import { GatewayError } from "../http/errors";
import { eligibleKeys, type KeyNeed, pickWeighted } from "./key-selection";
import type { RuntimeKey, RuntimeProvider } from "./runtime";
import type { HealthConfig, NetworkConfig } from "../config/sections/providers";

export const ACTOR_KIND = "key-breaker";

export const HEALTH_DEFAULTS = {
  enabled: true,
  failure_threshold: 5,
  window_seconds: 60,
  cooldown_seconds: 30,
  max_cooldown_seconds: 600,
  trial_requests: 1,
  panic_threshold: 1,
  conversation_affinity: false,
  strategy: "weighted",
} as const satisfies HealthConfig;

type EffectiveHealth = Required<HealthConfig>;

// Read on every request; a provider's network settings are replaced, never changed in place.
const effective = new WeakMap<NetworkConfig, { health: EffectiveHealth; policy: BreakerPolicy }>();

/** A provider's `network_config.health` over the defaults, with the breaker policy it makes. */
export function effectiveHealth(network: NetworkConfig) {
  let settings = effective.get(network);
  if (!settings) {
    const health: EffectiveHealth = { ...HEALTH_DEFAULTS, ...network.health };
    const policy: BreakerPolicy = {
      failureThreshold: health.failure_threshold,
      windowMs: health.window_seconds * 1000,
      cooldownMs: health.cooldown_seconds * 1000,
      maxCooldownMs: health.max_cooldown_seconds * 1000,
    };
    effective.set(network, (settings = { health, policy }));
  }
  return settings;
}

/** Provider names hold no `/`: the id stays unambiguous. A keyless provider has one breaker, its own. */
const breakerIdOf = (provider: string, keyId: string | undefined) => (keyId === undefined ? provider : `${provider}/${keyId}`);
/** The breaker of one model on a key (or on a keyless provider). */
const modelBreakerIdOf = (keyBreakerId: string, model: string) => `${keyBreakerId}\n${model}`;

/** What one node knows of a key between requests: only in memory. */
interface KeyUsage {
  inFlight: number;
  /** Trials let through to a half-open breaker and not answered yet. */
  trials: number;
  /** Decaying average of the time to the reply's headers (a stream's first byte), in ms. */
  latencyMs?: number;
  /** The provider's choice count when this key was last chosen, so the least recently sampled is found. */
  lastChosen: number;
}

interface Breaker {
  actor: Actor<typeof keyBreakerMachine>;
  /** The stored row as this node last wrote or read it. */
  row?: string;
  /** Writes of this breaker not landed yet: a row read meanwhile may be older than this node's state. */
  writing: number;
  /** Bumped on every local change, so a row read that a change overtook is not adopted. */
  version: number;
}

/**
 * Which breakers a failure counts against: the key's (a 429, a connection that failed), the
 * key's for that model only (a 404, a malformed reply), or both (a 5xx, a timeout: since any
 * success on the key clears its streak, the key opens only when its models all fail).
 */
export type FailureScope = "key" | "model" | "key_and_model";

/** How a finished attempt went, as far as the key's health is concerned. */
export type AttemptOutcome = { kind: "success" } | { kind: "failure"; scope: FailureScope; retryAfterMs?: number; rateLimited?: boolean } | { kind: "neutral" };

/** Requests a provider in panic sent to keys whose breakers were open, on this node. */
interface PanicCount {
  requests: number;
  lastAt: number;
}

/** Share of the decaying latency average the newest sample takes. */
const LATENCY_WEIGHT = 0.3;
/** With `least_latency`, one choice in this many goes to the key sampled least recently, so a slower key's average stays current. */
const SAMPLE_EVERY = 10;

const STATE_VALUE: Record<KeyBreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/** The error of a target whose keys are all open: a fallback is tried at once, and without one the client is told when to come back. */
export function keysOpen(provider: string, reopensAt: number, now: number): GatewayError {
  const retryAfterMs = Math.max(1000, reopensAt - now);
  const at = new Date(Math.max(reopensAt, now)).toISOString();
  return new GatewayError({
    status: 503,
    errorType: "provider_keys_open",
    message: `every key of provider '${provider}' that may serve this request is open after repeated failures; the first reopens at ${at}`,
    extra: { retry_after_ms: retryAfterMs, reopens_at: at },
  });
}

/**
 * Every provider key's circuit breaker (a `key-breaker` actor per key that ever failed) and what
 * this node measures of each key (requests in flight, latency). Requests read it all from memory;
 * a breaker's change of state is written to the actor snapshot store off the request path, and
 * changes other nodes wrote are read back every second.
 */
/** An attempt under way on a key: a plain record rather than a closure, as every upstream call makes one. */
export interface AttemptUnderWay {
  readonly provider: RuntimeProvider;
  readonly keyId: string | undefined;
  readonly model: string | undefined;
  readonly usage: KeyUsage;
  readonly trials: readonly KeyUsage[];
  readonly started: number;
}

const NO_TRIALS: readonly KeyUsage[] = Object.freeze([]);

export class KeyBreakers {
  private readonly breakers = new Map<string, Breaker>();
  private readonly usage = new Map<string, KeyUsage>();
  private readonly choices = new Map<string, number>();
  private readonly panics = new Map<string, PanicCount>();
  /** Whether a breaker of a single model was ever made on this node: until then requests look up only their key's. */
  private anyModelBreaker = false;
  private poller?: ReturnType<typeof setInterval>;
  private polling?: Promise<void>;

  constructor(
    private readonly db: Database,
    private readonly snapshots: ActorSnapshotStore,
    private readonly clock: Clock,
  ) {}

  /** Restores the stored breakers (an open one stays open until its cooldown ends) and follows other nodes' changes from then on. */
  async start(intervalMs = CHANGE_CHECK_MS): Promise<void> {
    await this.readStored();
    const failures = new FailureStreak("key breakers: reading other nodes' changes");
    this.poller = setInterval(() => {
      this.polling ??= this.readStored()
        .then(() => failures.succeeded(), (error) => failures.failed(error))
        .finally(() => (this.polling = undefined));
    }, intervalMs);
    this.poller.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.poller);
    await this.polling;
    for (const breaker of this.breakers.values()) breaker.actor.stop();
    this.breakers.clear();
    // An open breaker's last write lands before the database closes: the next start keeps it open.
    await this.snapshots.idle();
  }

  stateOf(provider: string, keyId: string | undefined): KeyBreakerState {
    return this.stateById(breakerIdOf(provider, keyId));
  }

  /**
   * Whether a request (for `model`, when it names one) may go to the key now: its breaker, and
   * its breaker for that model, each closed or half-open with a trial to spare; always when the
   * provider's breakers are off.
   */
  admits(provider: RuntimeProvider, keyId: string | undefined, model?: string): boolean {
    const { health } = effectiveHealth(provider.network);
    // While no key ever failed, nothing is looked up (nor allocated) per request.
    if (!health.enabled || this.breakers.size === 0) return true;
    const id = breakerIdOf(provider.name, keyId);
    if (!this.admitsId(id, health.trial_requests)) return false;
    return model === undefined || !this.anyModelBreaker || this.admitsId(modelBreakerIdOf(id, model), health.trial_requests);
  }

  private admitsId(id: string, trialRequests: number): boolean {
    const state = this.stateById(id);
    return state === "closed" || (state === "half_open" && (this.usage.get(id)?.trials ?? 0) < trialRequests);
  }

  /**
   * The key a request goes to among those that meet its need, leaving out open keys (and
   * half-open ones without a trial to spare), by the provider's strategy; in panic, among all of
   * them but those a 429 holds back; `preferred` (a conversation's key) whenever it is among them.
   * A `provider_keys_open` error when breakers left out every key that could serve, undefined when
   * none could anyway.
   */
  pick(provider: RuntimeProvider, need: KeyNeed, excluded: ReadonlySet<string>, preferred?: string): RuntimeKey | GatewayError | undefined {
    const eligible = eligibleKeys(provider.keys, need, excluded);
    if (eligible.length === 0) return undefined;
    // While no key ever failed, every eligible key is usable: nothing is filtered (nor allocated).
    const usable = this.breakers.size === 0 ? eligible : this.usable(provider, eligible, breakerModelOf(need));
    if (usable instanceof GatewayError) return usable;
    const strategy = effectiveHealth(provider.network).health.strategy;
    const conversationKey = preferred !== undefined ? usable.find((candidate) => candidate.id === preferred) : undefined;
    if (strategy === "weighted") return conversationKey ?? pickWeighted(usable);
    const key = conversationKey ?? this.byStrategy(provider.name, strategy, usable);
    // When each key was last chosen serves least_latency's sampling: the weighted pick needs none of it.
    if (key) this.usageOf(breakerIdOf(provider.name, key.id)).lastChosen = this.countChoice(provider.name);
    return key;
  }

  /** For a keyless provider: undefined when its breaker (or panic) lets the request through, else why not. */
  refusesKeyless(provider: RuntimeProvider, model?: string): GatewayError | undefined {
    const usable = this.usable(provider, [{ id: undefined }], model);
    return usable instanceof GatewayError ? usable : undefined;
  }

  /** Marks an attempt under way on the key (for `model`); `end` records how it went once it is answered. */
  begin(provider: RuntimeProvider, keyId: string | undefined, model?: string): AttemptUnderWay {
    const usage = this.usageOf(breakerIdOf(provider.name, keyId));
    const trials = this.breakers.size === 0 ? NO_TRIALS : this.idsOf(provider.name, keyId, model).filter((id) => this.stateById(id) === "half_open").map((id) => this.usageOf(id));
    usage.inFlight++;
    for (const trial of trials) trial.trials++;
    return { provider, keyId, model, usage, trials, started: performance.now() };
  }

  /** An attempt `begin` marked has been answered: `outcome` says how. */
  end({ provider, keyId, model, usage, trials, started }: AttemptUnderWay, outcome: AttemptOutcome): void {
    usage.inFlight--;
    for (const trial of trials) trial.trials--;
    if (outcome.kind === "neutral") return;
    if (outcome.kind === "success") {
      const sample = performance.now() - started;
      usage.latencyMs = usage.latencyMs === undefined ? sample : usage.latencyMs + LATENCY_WEIGHT * (sample - usage.latencyMs);
    }
    this.record(provider, keyId, model, outcome);
  }

  /** What GET /api/providers shows of a provider's panic on this node: requests sent to open keys, and when the last was. */
  panicView(provider: string) {
    const panic = this.panics.get(provider);
    return { requests: panic?.requests ?? 0, last_at: panic ? new Date(panic.lastAt).toISOString() : undefined };
  }

  /** `gateway_provider_panic_requests_total` samples: per provider that was ever in panic on this node. */
  panicSamples() {
    return [...this.panics].map(([provider, panic]) => ({ labels: { provider }, value: panic.requests }));
  }

  /** What GET /api/providers shows of a key's health, with its breakers for single models that are not closed. */
  view(provider: string, keyId: string | undefined) {
    const id = breakerIdOf(provider, keyId);
    const usage = this.usage.get(id);
    const models = [...this.breakers.values()]
      .map(({ actor }) => actor.getSnapshot())
      .filter(({ context, value }) => context.model !== undefined && value !== "closed" && context.provider === provider && context.keyId === keyId)
      .map(({ context }) => ({ model: context.model!, ...this.breakerView(modelBreakerIdOf(id, context.model!)) }));
    return {
      ...this.breakerView(id),
      latency_ms: usage?.latencyMs === undefined ? undefined : Math.round(usage.latencyMs),
      in_flight: usage?.inFlight ?? 0,
      models: models.length > 0 ? models : undefined,
    };
  }

  private breakerView(id: string) {
    const context = this.breakers.get(id)?.actor.getSnapshot().context;
    const state = this.stateById(id);
    return {
      state,
      reopens_at: state !== "closed" && context?.reopensAt !== undefined ? new Date(context.reopensAt).toISOString() : undefined,
      recent_failures: context?.failures.length ?? 0,
    };
  }

  private stateById(id: string): KeyBreakerState {
    return (this.breakers.get(id)?.actor.getSnapshot().value as KeyBreakerState | undefined) ?? "closed";
  }

  /** The breakers a request on the key passes: the key's, and its breaker for the model when the request names one. */
  private idsOf(provider: string, keyId: string | undefined, model: string | undefined): string[] {
    const id = breakerIdOf(provider, keyId);
    return model === undefined ? [id] : [id, modelBreakerIdOf(id, model)];
  }

  /**
   * The keys the breakers admit; when at least `panic_threshold` of them are open, the provider
   * is in panic (as Envoy's load balancers are): every key but those a 429's retry-after holds back.
   */
  private usable<K extends { id: string | undefined }>(provider: RuntimeProvider, keys: readonly K[], model: string | undefined): K[] | GatewayError {
    const admitted = keys.filter((key) => this.admits(provider, key.id, model));
    if (admitted.length === keys.length) return admitted;
    const threshold = effectiveHealth(provider.network).health.panic_threshold;
    const inPanic = threshold > 0 && (keys.length - admitted.length) / keys.length >= threshold;
    const usable = inPanic ? keys.filter((key) => !this.heldByRateLimit(provider.name, key.id)) : admitted;
    if (usable.length === 0) return this.allOpen(provider, keys.map((key) => key.id), model);
    if (inPanic) this.countPanic(provider.name);
    return usable;
  }

  private heldByRateLimit(provider: string, keyId: string | undefined): boolean {
    const id = breakerIdOf(provider, keyId);
    return this.stateById(id) === "open" && this.breakers.get(id)!.actor.getSnapshot().context.rateLimited === true;
  }

  private countPanic(provider: string): void {
    const panic = this.panics.get(provider) ?? { requests: 0, lastAt: 0 };
    this.panics.set(provider, { requests: panic.requests + 1, lastAt: this.clock.now() });
  }

  /** `gateway_key_breaker_state` samples: 0 closed, 1 half-open, 2 open, per key of every provider. */
  /** Each provider with its keys (a keyless provider counts its own breaker) and how many of them are open. */
  openKeyCounts(providers: readonly RuntimeProvider[]) {
    return providers.map((provider) => {
      const keyIds = provider.keys.length > 0 ? provider.keys.map((key) => key.id) : [undefined];
      return { provider: provider.name, keys: keyIds.length, open: keyIds.filter((keyId) => this.stateOf(provider.name, keyId) === "open").length };
    });
  }

  metricSamples(providers: readonly RuntimeProvider[]) {
    return providers.flatMap((provider) =>
      (provider.keys.length > 0 ? provider.keys.map((key) => key.id) : [undefined]).map((keyId) => ({
        labels: { provider: provider.name, key: keyId ?? "" },
        value: STATE_VALUE[this.stateOf(provider.name, keyId)],
      })),
    );
  }

  private byStrategy(provider: string, strategy: "least_latency" | "least_busy", keys: readonly RuntimeKey[]): RuntimeKey | undefined {
    const candidates = keys.some((key) => key.weight > 0) ? keys.filter((key) => key.weight > 0) : keys;
    const usageOf = (key: RuntimeKey) => this.usage.get(breakerIdOf(provider, key.id));
    if (strategy === "least_busy") {
      const fewest = Math.min(...candidates.map((key) => usageOf(key)?.inFlight ?? 0));
      return pickWeighted(candidates.filter((key) => (usageOf(key)?.inFlight ?? 0) === fewest));
    }
    const unmeasured = candidates.filter((key) => usageOf(key)?.latencyMs === undefined);
    if (unmeasured.length > 0) return pickWeighted(unmeasured);
    if (((this.choices.get(provider) ?? 0) + 1) % SAMPLE_EVERY === 0) return minBy(candidates, (key) => usageOf(key)?.lastChosen ?? 0);
    return minBy(candidates, (key) => usageOf(key)!.latencyMs!);
  }

  private countChoice(provider: string): number {
    const count = (this.choices.get(provider) ?? 0) + 1;
    this.choices.set(provider, count);
    return count;
  }

  /** The error when no key may serve: it names when the first of them reopens (a key reopens once its breaker and its model's both have). */
  private allOpen(provider: RuntimeProvider, keyIds: ReadonlyArray<string | undefined>, model: string | undefined): GatewayError {
    const now = this.clock.now();
    const reopensAtOf = (id: string) => (this.stateById(id) === "closed" ? now : (this.breakers.get(id)!.actor.getSnapshot().context.reopensAt ?? now));
    const reopens = keyIds.map((keyId) => Math.max(...this.idsOf(provider.name, keyId, model).map(reopensAtOf)));
    return keysOpen(provider.name, Math.min(...reopens), now);
  }

  private usageOf(id: string): KeyUsage {
    let usage = this.usage.get(id);
    if (!usage) this.usage.set(id, (usage = { inFlight: 0, trials: 0, lastChosen: 0 }));
    return usage;
  }

  /** A success clears the key's breaker and its model's; a failure counts against those its scope names. */
  private record(provider: RuntimeProvider, keyId: string | undefined, model: string | undefined, outcome: Exclude<AttemptOutcome, { kind: "neutral" }>): void {
    const { health, policy } = effectiveHealth(provider.network);
    if (!health.enabled || (outcome.kind === "success" && this.breakers.size === 0)) return;
    const at = this.clock.now();
    const scope = outcome.kind === "failure" ? outcome.scope : "key_and_model";
    // A model-less call's 404 or odd reply is about the object it named, not the key.
    if (scope === "model" && model === undefined) return;
    const keyBreakerId = breakerIdOf(provider.name, keyId);
    const targets: Array<[string, string | undefined]> = [];
    if (scope !== "model") targets.push([keyBreakerId, undefined]);
    if (scope !== "key" && model !== undefined) targets.push([modelBreakerIdOf(keyBreakerId, model), model]);
    for (const [id, scoped] of targets) {
      // A key that never failed needs no actor: it is closed.
      if (outcome.kind === "success" && !this.breakers.has(id)) continue;
      const breaker = this.breakers.get(id) ?? this.run(id, createActor(keyBreakerMachine, { input: { provider: provider.name, keyId, model: scoped, at }, clock: this.clock }));
      breaker.actor.send(outcome.kind === "success" ? { type: "success", at } : { type: "failure", at, policy, retryAfterMs: outcome.retryAfterMs, rateLimited: outcome.rateLimited });
    }
  }

  /** Starts the actor; each change of its state (not each failure counted) is written, off the request path. */
  private run(id: string, actor: Actor<typeof keyBreakerMachine>, row?: string): Breaker {
    const breaker: Breaker = { actor, row, writing: 0, version: 0 };
    if (actor.getSnapshot().context.model !== undefined) this.anyModelBreaker = true;
    this.breakers.get(id)?.actor.stop();
    this.breakers.set(id, breaker);
    let state = actor.getSnapshot().value;
    let reopensAt = actor.getSnapshot().context.reopensAt;
    actor.subscribe((snapshot) => {
      if (this.breakers.get(id) !== breaker || (snapshot.value === state && snapshot.context.reopensAt === reopensAt)) return;
      if (snapshot.value === "open" && state !== "open") {
        const { provider, keyId, model } = snapshot.context;
        const what = `${keyId === undefined ? `provider '${provider}'` : `key '${keyId}' of provider '${provider}'`}${model === undefined ? "" : ` for model '${model}'`}`;
        console.warn(`key breaker: ${what} opened after repeated failures; left out until ${new Date(snapshot.context.reopensAt!).toISOString()}`);
      }
      state = snapshot.value;
      reopensAt = snapshot.context.reopensAt;
      this.write(id, breaker);
    });
    actor.start();
    return breaker;
  }

  private write(id: string, breaker: Breaker): void {
    const snapshot = breaker.actor.getSnapshot();
    const persisted = breaker.actor.getPersistedSnapshot();
    breaker.row = JSON.stringify(persisted);
    breaker.version++;
    breaker.writing++;
    this.snapshots
      .commit([this.snapshots.saveUnleased(ACTOR_KIND, id, snapshot.value, persisted, new Date(this.clock.now()))], { retry: true })
      .catch((error) => console.error(`key breaker ${id}: writing its state failed`, error))
      .finally(() => breaker.writing--);
  }

  /** Takes every stored breaker whose row differs from what this node last wrote or read: another node changed it, or this node just started. */
  private async readStored(): Promise<void> {
    const versions = new Map([...this.breakers].map(([id, breaker]) => [id, breaker.version]));
    const rows = await this.db.select({ id: actorSnapshots.id, snapshot: actorSnapshots.snapshot }).from(actorSnapshots).where(eq(actorSnapshots.kind, ACTOR_KIND));
    for (const { id, snapshot } of rows) {
      const row = JSON.stringify(snapshot);
      const current = this.breakers.get(id);
      if (current && (current.row === row || current.writing > 0 || current.version !== versions.get(id))) continue;
      try {
        const restored = snapshot as Snapshot<unknown> & { context: KeyBreakerInput };
        // The input only starts a new breaker; a restored one keeps its context.
        const input = { provider: restored.context.provider, keyId: restored.context.keyId, model: restored.context.model, at: this.clock.now() };
        const actor = createActor(keyBreakerMachine, { snapshot: restored, input, clock: this.clock });
        const breaker = this.run(id, actor, row);
        // Told the time, an open breaker re-arms its cooldown for what is left of it; what follows is this node's own.
        actor.send({ type: "rehydrated", at: this.clock.now() });
        breaker.row = row;
      } catch (error) {
        console.error(`key breaker ${id} could not be restored`, error);
      }
    }
  }
}

/** The model whose breakers a call passes besides its key's: none for batch and model-less calls. */
export const breakerModelOf = (need: KeyNeed) => (need.batchApi || need.anyModel ? undefined : need.model);

function minBy<T>(items: readonly T[], score: (item: T) => number): T | undefined {
  let best: T | undefined;
  let bestScore = Infinity;
  for (const item of items) {
    const value = score(item);
    if (value < bestScore) [best, bestScore] = [item, value];
  }
  return best;
}
