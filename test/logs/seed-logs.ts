import { openDatabase } from "../../src/db/client";
import { GatewayError } from "../../src/http/errors";
import type { InferenceOutcome, RequestContext } from "../../src/inference/hooks";
import type { Operation } from "../../src/upstream/operations";
import type { NewRequestLogRow } from "../../src/db/schema/logs";
import { createRequestLogs, type RequestLogsOptions } from "../../src/logs";

/**
 * What a test knows about one request it made up: the truth every expected result is computed
 * from. `settledFor` turns it into the context and outcome the pipeline would hand the recorder.
 */
export interface LogFact {
  id: string;
  parentRequestId?: string;
  timestamp: Date;
  operation: Extract<Operation, "chat" | "embedding">;
  provider: string;
  model: string;
  /** The name the client asked for when it was an alias. */
  alias?: string;
  keyId: string;
  virtualKeyId?: string;
  teamId?: string;
  customerId?: string;
  userId?: string;
  businessUnitId?: string;
  projectId?: string;
  routingRuleId?: string;
  routingEngine?: string;
  status: "success" | "error";
  errorType?: `provider_${string}` | `policy_${string}`;
  stopReason?: "stop" | "length" | "tool_calls";
  toolCallNames: string[];
  cacheHitType?: "direct" | "semantic";
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  cost?: number;
  latencyMs: number;
  timeToFirstTokenMs?: number;
  sessionId?: string;
  metadata: Record<string, string>;
  prompt: string;
  reply?: string;
}

export const totalTokens = (fact: LogFact) => fact.inputTokens + fact.outputTokens;
export const OBJECT_OF = { chat: "chat.completion", embedding: "embedding" } as const;

/** A small deterministic generator so every run seeds the same set. */
export function seededRandom(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!, int: (low: number, high: number) => low + Math.floor(next() * (high - low + 1)) };
}

function errorOutcome(fact: LogFact) {
  const status = fact.errorType?.startsWith("policy_") ? 429 : 502;
  return { status, error: new GatewayError({ status, errorType: fact.errorType!, message: `upstream said no (${fact.errorType})` }) };
}

/** The context and outcome the inference pipeline would settle for this request. */
export function settledFor(fact: LogFact): [RequestContext, InferenceOutcome] {
  const target = { provider: fact.provider, model: fact.model };
  const hasCaller = fact.virtualKeyId !== undefined;
  const body = fact.operation === "chat" ? { model: fact.alias ?? `${fact.provider}/${fact.model}`, messages: [{ role: "user", content: fact.prompt }] } : { model: `${fact.provider}/${fact.model}`, input: fact.prompt };
  const context: RequestContext = {
    id: fact.id,
    receivedAt: fact.timestamp,
    startedAt: 0,
    operation: fact.operation,
    format: "openai",
    body,
    stream: fact.timeToFirstTokenMs !== undefined,
    headers: new Headers({ authorization: "Bearer sk-gw-not-logged" }),
    targets: [target],
    requestedModel: fact.alias ?? `${fact.provider}/${fact.model}`,
    caller: hasCaller ? { virtualKeyId: fact.virtualKeyId!, virtualKeyName: `name of ${fact.virtualKeyId}`, teamId: fact.teamId, customerId: fact.customerId, userId: fact.userId, businessUnitId: fact.businessUnitId, projectId: fact.projectId } : undefined,
    routingRule: fact.routingRuleId ? { id: fact.routingRuleId, name: `rule ${fact.routingRuleId}` } : undefined,
    routingEngine: fact.routingEngine,
    metadata: fact.metadata,
    sessionId: fact.sessionId,
    parentRequestId: fact.parentRequestId,
  };
  const failed = fact.status === "error";
  const outcome: InferenceOutcome = {
    ...(failed ? errorOutcome(fact) : { status: 200 }),
    answered: failed ? undefined : { target, keyId: fact.keyId, isFallback: fact.parentRequestId !== undefined },
    attempts: [{ provider: fact.provider, model: fact.model, key: fact.keyId, status: failed ? 502 : 200, is_fallback: false }],
    summary: {
      usage: { prompt_tokens: fact.inputTokens, completion_tokens: fact.outputTokens, total_tokens: totalTokens(fact), prompt_tokens_details: { cached_tokens: fact.cachedTokens }, completion_tokens_details: { reasoning_tokens: fact.reasoningTokens } },
      finishReason: fact.stopReason,
      toolCallNames: fact.toolCallNames,
      content: fact.reply,
      timeToFirstTokenMs: fact.timeToFirstTokenMs,
    },
    cost: fact.cost,
    cacheHit: fact.cacheHitType,
    latencyMs: fact.latencyMs,
  };
  return [context, outcome];
}

/** A second request-log service on the gateway's database, writing from its own thread as the gateway does. */
/** A successful chat's log row with only what the table requires, for rows a test writes past the recorder (a journal left behind). */
export function minimalLogRow(id: string, extra: Partial<NewRequestLogRow> = {}): NewRequestLogRow {
  return {
    id,
    timestamp: new Date(),
    object: "chat.completion",
    provider: "openai",
    model: "gpt-4o-mini",
    status: "success",
    statusCode: 200,
    toolCallNames: [],
    inputTokens: 3,
    outputTokens: 2,
    cachedTokens: 0,
    reasoningTokens: 0,
    totalTokens: 5,
    latencyMs: 12,
    stream: false,
    metadata: {},
    attempts: [],
    ...extra,
  };
}

export async function openRequestLogs(databaseUrl: string, options: RequestLogsOptions = {}) {
  const database = await openDatabase(databaseUrl);
  const logs = createRequestLogs(database.db, { threads: { url: databaseUrl }, ...options });
  return {
    logs,
    async close() {
      await logs.close();
      database.close();
    },
  };
}

/** Records the facts through the real recorder and writer into the gateway's database. */
export async function recordFacts(databaseUrl: string, facts: LogFact[], options: RequestLogsOptions = {}): Promise<void> {
  const opened = await openRequestLogs(databaseUrl, options);
  for (const fact of facts) opened.logs.recorder.settle!(...settledFor(fact));
  await opened.close();
}

const MODELS = [
  ["openai", "gpt-4o"],
  ["openai", "gpt-4o-mini"],
  ["anthropic", "claude-sonnet-4"],
  ["genai", "gemini-2.5-flash"],
] as const;
const WORDS = ["weather", "forecast", "invoice", "refund", "lantern", "harbor", "meadow", "copper", "zebra", "quasar"];
const TOOLS = [[], [], ["get_weather"], ["search", "get_weather"], ["lookup"]];

/** Made-up callers: index 0 is anonymous (no virtual key). */
const CALLERS = [
  {},
  { virtualKeyId: "vk-a", teamId: "team-1", customerId: "cust-1", userId: "user-1", businessUnitId: "bu-1", projectId: "proj-1" },
  { virtualKeyId: "vk-b", teamId: "team-2", customerId: "cust-1", userId: "user-2", businessUnitId: "bu-2", projectId: "proj-2" },
  { virtualKeyId: "vk-c", teamId: "team-2", userId: "user-3" },
];

/**
 * `count` requests, one every 23 minutes back from `anchor` (so no row sits near a round window
 * edge), with every field varied; every ninth is a fallback child of the root before it.
 */
export function generateFacts(count: number, anchor: Date, seed = 7): LogFact[] {
  const random = seededRandom(seed);
  const facts: LogFact[] = [];
  for (let index = 0; index < count; index++) {
    const [provider, model] = random.pick(MODELS);
    const operation = index % 5 === 4 ? "embedding" : "chat";
    const failed = index % 7 === 3;
    const tools = operation === "chat" && !failed ? random.pick(TOOLS) : [];
    const parent = index % 9 === 5 ? facts.findLast((fact) => fact.parentRequestId === undefined) : undefined;
    const words = () => Array.from({ length: 3 }, () => random.pick(WORDS)).join(" ");
    facts.push({
      id: `req-${String(index).padStart(4, "0")}`,
      parentRequestId: parent?.id,
      timestamp: new Date(anchor.getTime() - (index * 23 + 7) * 60_000),
      operation,
      provider,
      model,
      alias: index % 6 === 1 ? "fast" : undefined,
      keyId: `${provider}-key-${random.int(1, 2)}`,
      ...random.pick(CALLERS),
      routingRuleId: index % 4 === 2 ? random.pick(["rule-eu", "rule-cheap"]) : undefined,
      routingEngine: index % 4 === 2 ? "routing-rule" : random.pick(["loadbalancing", undefined]),
      status: failed ? "error" : "success",
      errorType: failed ? random.pick(["provider_upstream_error", "policy_rate_limited"] as const) : undefined,
      stopReason: operation === "chat" && !failed ? (tools.length ? "tool_calls" : random.pick(["stop", "length"] as const)) : undefined,
      toolCallNames: tools,
      cacheHitType: index % 10 === 8 ? random.pick(["direct", "semantic"] as const) : undefined,
      inputTokens: random.int(5, 4000),
      outputTokens: operation === "embedding" || failed ? 0 : random.int(1, 1500),
      cachedTokens: random.int(0, 3) === 0 ? random.int(1, 500) : 0,
      reasoningTokens: random.int(0, 2) === 0 ? random.int(1, 300) : 0,
      cost: index % 8 === 6 ? undefined : Math.round(random.next() * 10_000) / 100_000,
      latencyMs: random.int(40, 4000),
      timeToFirstTokenMs: index % 3 === 0 && operation === "chat" ? random.int(20, 400) : undefined,
      sessionId: index % 5 === 0 ? random.pick(["sess-1", "sess-2"]) : undefined,
      metadata: { env: random.pick(["prod", "staging"]), ...(index % 2 ? { feature: random.pick(["chat", "search"]) } : {}) },
      prompt: words(),
      reply: operation === "chat" && !failed ? words() : undefined,
    });
  }
  return facts;
}

/** Whether any word of the logged text starts with each word of `search`, as content_search promises. */
export function contentMatches(fact: LogFact, search: string): boolean {
  const words = `${fact.prompt} ${fact.reply ?? ""}`.toLowerCase().split(/[^a-z0-9]+/);
  return search
    .toLowerCase()
    .split(/\s+/)
    .every((term) => words.some((word) => word.startsWith(term)));
}
