import type { GatewayError } from "../http/errors";
import type { Attempt, GuardrailVerdict } from "../db/schema/types";
import type { ModelRef } from "./model-ref";
import type { Operation, WireFormat } from "../upstream/operations";
import type { ReplySummary } from "./reply-summary";
import type { Usage } from "./canonical";

/** Who is calling, as governance resolved it from the virtual key. */
export interface CallerIdentity {
  virtualKeyId: string;
  virtualKeyName: string;
  teamId?: string;
  customerId?: string;
  userId?: string;
  businessUnitId?: string;
  projectId?: string;
  /** The virtual key keeps its streamed replies resumable unless a call says otherwise. */
  resumableStreams?: boolean;
}

/** One inference request as it moves through the pipeline; hooks read it and add what they learn. */
export interface RequestContext {
  readonly id: string;
  readonly receivedAt: Date;
  /** `performance.now()` at arrival, for latencies. */
  readonly startedAt: number;
  readonly operation: Operation;
  readonly format: WireFormat;
  /** `admit` hooks may rewrite it (plugins); what is sent upstream is read after they ran. */
  body: Record<string, unknown>;
  readonly stream: boolean;
  readonly headers: Headers;
  /**
   * The primary first, then the fallbacks; `admit` hooks may rewrite them (routing rules). Empty
   * during `admit` when the model names nothing resolvable, which a hook may still route.
   */
  targets: ModelRef[];
  /** The model as the client wrote it. */
  readonly requestedModel: string;
  /** The fallbacks as the client wrote them. */
  readonly requestedFallbacks?: readonly string[];
  /** The provider a provider mount answers bare model names with. */
  readonly mountProvider?: string;
  /** Per provider, the only keys this request may use (a virtual key's `key_ids`); a provider not listed may use any of its keys. */
  allowedKeyIds?: Readonly<Record<string, readonly string[]>>;
  caller?: CallerIdentity;
  routingRule?: { id: string; name: string };
  routingEngine?: string;
  /** From `x-gw-metadata-<key>` headers and the body's `metadata` object. */
  readonly metadata: Record<string, string>;
  readonly sessionId?: string;
  /** Set when this request is a child of another (a fallback attempt, an MCP tool call). */
  readonly parentRequestId?: string;
  /** A gateway component calling on the deployment's own behalf (the dashboard agent); never set from HTTP. */
  readonly internalCaller?: string;
  /** The prompt rendered into the request (`/v1/prompts/{name}/...` or a body's `prompt` field); never set from HTTP. */
  readonly prompt?: string;
  /** The virtual key a signed-in operator runs this request as (the dashboard's playground); never set from HTTP. */
  readonly actingVirtualKeyId?: string;
  /** The conversation (agent run) the request belongs to, when a hook needed to name it (a virtual key's `session_budgets`). */
  conversationId?: string;
  /**
   * Set by a hook holding the request to a running limit: read after each chunk of a relayed
   * stream with what the stream has brought so far, it answers the error that ends the stream there.
   */
  streamCutoff?: (sofar: StreamSoFar) => GatewayError | undefined;
  /** What guardrails found and did, set when they settle: the request log records it. */
  guardrails?: GuardrailVerdict[];
  /** The complexity tier and score (0 to 1), set when a routing rule read them: the request log records them. */
  complexity?: { tier: string; score: number };
}

/** What a relayed stream has brought so far: the usage it reported, and the characters of its output. */
export interface StreamSoFar {
  usage?: Usage;
  outputCharacters: number;
}

export interface InferenceOutcome {
  status: number;
  error?: GatewayError;
  /** The target that answered, when one did. */
  answered?: { target: ModelRef; keyId?: string; conversationId?: string; isFallback: boolean };
  attempts: Attempt[];
  summary: ReplySummary;
  /** USD, when pricing knows the model; undefined means missing. */
  cost?: number;
  /** How the response cache answered, when it did. */
  cacheHit?: "direct" | "semantic";
  latencyMs: number;
}

/** An answer a hook gives in place of the upstream's (a cache hit, a plugin's short-circuit). */
export interface HookReply {
  response: Response;
  /** Set by the response cache, so logs and metrics record the hit. */
  cacheHit?: "direct" | "semantic";
}

/**
 * The pipeline's extension points. `admit` runs before any upstream call in hook order; it may
 * rewrite `context.body` or `targets`, reject the request by throwing a GatewayError, or answer
 * it with a HookReply, which skips the upstream and the later hooks' `admit`.
 * `transformResponse` runs on the client's response in reverse order, for the hooks whose
 * `admit` ran, and may replace it. `settle` runs once for every hook when the reply (or stream)
 * has ended, whatever the result, and must not throw or block.
 */
export interface InferenceHooks {
  readonly name: string;
  admit?(context: RequestContext): Promise<HookReply | void> | HookReply | void;
  transformResponse?(context: RequestContext, response: Response): Promise<Response> | Response;
  settle?(context: RequestContext, outcome: InferenceOutcome): void;
}

export interface Admission {
  /** The hooks whose `admit` ran, in order. */
  admitted: readonly InferenceHooks[];
  reply?: HookReply;
}

/**
 * Runs `admit` in hook order, from `start`, until one answers. Most hooks admit synchronously:
 * the admission is then had without a promise, and only a hook's promise is waited for.
 */
export function admitThrough(hooks: readonly InferenceHooks[], context: RequestContext, start = 0): Admission | Promise<Admission> {
  // No closure in the loop: one capturing `index` would cost a scope on every turn, awaited or not.
  for (let index = start; index < hooks.length; index++) {
    const reply = hooks[index]!.admit?.(context);
    if (reply instanceof Promise) return admitOnceWaited(hooks, context, index, reply);
    if (reply) return { admitted: hooks.slice(0, index + 1), reply };
  }
  return { admitted: hooks };
}

function admitOnceWaited(hooks: readonly InferenceHooks[], context: RequestContext, index: number, reply: Promise<HookReply | void>): Promise<Admission> {
  return reply.then((waited) => (waited ? { admitted: hooks.slice(0, index + 1), reply: waited } : admitThrough(hooks, context, index + 1)));
}

/** Passes the client's response back through the admitted hooks, last admitted first; without a promise while every hook answers at once. */
export function transformThrough(admission: Admission, context: RequestContext, response: Response, end = admission.admitted.length): Response | Promise<Response> {
  let current = response;
  for (let index = end - 1; index >= 0; index--) {
    const transformed = admission.admitted[index]!.transformResponse?.(context, current);
    if (transformed instanceof Promise) return transformOnceWaited(admission, context, index, transformed);
    if (transformed) current = transformed;
  }
  return current;
}

function transformOnceWaited(admission: Admission, context: RequestContext, index: number, transformed: Promise<Response>): Promise<Response> {
  return transformed.then((waited) => transformThrough(admission, context, waited, index));
}
