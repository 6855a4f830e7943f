import type { GatewayError } from "../http/errors";
import type { Attempt } from "./dispatch";
import type { ModelRef } from "./model-ref";
import type { Operation, WireFormat } from "./operations";
import type { ReplySummary } from "./reply-summary";

/** Who is calling, as governance resolved it from the virtual key. */
export interface CallerIdentity {
  virtualKeyId: string;
  virtualKeyName: string;
  teamId?: string;
  customerId?: string;
  userId?: string;
  businessUnitId?: string;
  projectId?: string;
}

/** One inference request as it moves through the pipeline; hooks read it and add what they learn. */
export interface RequestContext {
  readonly id: string;
  readonly receivedAt: Date;
  /** `performance.now()` at arrival, for latencies. */
  readonly startedAt: number;
  readonly operation: Operation;
  readonly format: WireFormat;
  readonly body: Record<string, unknown>;
  readonly stream: boolean;
  readonly headers: Headers;
  /** The primary first, then the fallbacks; `admit` hooks may rewrite them (routing rules). */
  targets: ModelRef[];
  /** The model as the client wrote it. */
  readonly requestedModel: string;
  caller?: CallerIdentity;
  routingRule?: { id: string; name: string };
  routingEngine?: string;
  /** From `x-gw-metadata-<key>` headers and the body's `metadata` object. */
  readonly metadata: Record<string, string>;
  readonly sessionId?: string;
  /** Set when this request is a child of another (a fallback attempt, an MCP tool call). */
  readonly parentRequestId?: string;
}

export interface InferenceOutcome {
  status: number;
  error?: GatewayError;
  /** The target that answered, when one did. */
  answered?: { target: ModelRef; keyId?: string; isFallback: boolean };
  attempts: Attempt[];
  summary: ReplySummary;
  /** USD, when pricing knows the model; undefined means missing. */
  cost?: number;
  /** How the response cache answered, when it did. */
  cacheHit?: "direct" | "semantic";
  latencyMs: number;
}

/**
 * The pipeline's extension points. `admit` runs before any upstream call and may reject the
 * request by throwing a GatewayError; `settle` runs once when the reply (or stream) has ended,
 * whatever the result, and must not throw or block.
 */
export interface InferenceHooks {
  readonly name: string;
  admit?(context: RequestContext): Promise<void> | void;
  settle?(context: RequestContext, outcome: InferenceOutcome): void;
}
