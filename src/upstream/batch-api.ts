import { GatewayError } from "../http/errors";
import type { BatchOperation, FileOperation } from "./operations";
import type { UpstreamCall, UpstreamSuccess, UpstreamTarget } from "./adapter";
import type { UpstreamReply } from "./fetch";

export type BatchOrFileOperation = FileOperation | BatchOperation;

/**
 * Sends one call with the chosen key's authorization, under the request's timeout and signal.
 * `stream` keeps the reply's body unread (file contents pass through as they arrive).
 */
export type SendUpstream = (call: UpstreamCall, options?: { stream?: boolean }) => Promise<UpstreamReply | GatewayError>;

export interface BatchCall {
  operation: BatchOrFileOperation;
  /** The provider's name, as clients prefix models with it. */
  provider: string;
  target: UpstreamTarget;
  /**
   * The client's fields: an upload's form fields (`file` a File), `id` the upstream id of the
   * object a call is about, a list's query (`limit`, `after`), a batch's create body.
   */
  body: Record<string, unknown>;
}

/** What a backend answers: an OpenAI-shaped reply, or an error it can name. */
export type BatchReply = UpstreamReply | GatewayError;

/**
 * One provider's files and batches, spoken in OpenAI's shapes: file objects, batch objects and
 * batch output lines. Ids in replies are the upstream's own; the caller wraps them.
 */
export interface BatchApi {
  readonly operations: ReadonlySet<BatchOrFileOperation>;
  run(call: BatchCall, send: SendUpstream): Promise<BatchReply>;
}

export type { UpstreamSuccess };

/** What a helper answers when the upstream did not give it JSON to work with: a failure to pass on as it is. */
export const isBatchReply = (value: object): value is BatchReply => value instanceof GatewayError || "ok" in value;
