import type { Dispatched } from "./dispatch";
import type { BridgedResponse } from "./formats/openai/responses-reply";
import type { InferenceCall } from "./handle";
import type { RequestContext } from "./hooks";
import type { ModelRef } from "./model-ref";
import type { Forwarded } from "./mounts/kept-objects";
import type { ProviderObjectOperation } from "../upstream/provider-objects";
import type { OwnExchange } from "./upstream-exchange";

/**
 * An operation that needs more than a relay (a conversation the gateway keeps, ...), attached to
 * the pipeline rather than written into it: `handle.ts` and the provider-object mounts run every
 * handler in `Inference.operations` and name none of them.
 */
export interface OperationHandler {
  /** Whether the gateway itself keeps what `id` names: no provider holds it, and no key made it. */
  ownsId?(id: string): boolean;
  /** The key a call must go with, for what it continues (a provider's kept response), when the call names none; `handlers` are every attached one. */
  pinnedKey?(call: InferenceCall, primary: ModelRef, handlers: readonly OperationHandler[]): string | undefined | Promise<string | undefined>;
  /** Before the upstream call: its part in the call (it may rewrite `context.body`), or undefined when it has none. */
  before?(call: InferenceCall, context: RequestContext): OperationRun | undefined | Promise<OperationRun | undefined>;
  /** A call on the provider-object routes it answers itself; undefined sends the call on to the provider. */
  answer?(operation: ProviderObjectOperation, request: Request, forwarded: Forwarded, mountProvider: string | undefined): Promise<Response> | undefined;
}

/** A handler's part in one call. */
export interface OperationRun {
  /** The upstream calls, made by the operation itself on each attempt (a batch's, through the adapter's batch API) in place of the adapter's one call. */
  exchange?: OwnExchange;
  /** The upstream's answer, before the client's response is made of it; a run may hand on a reply of its own making (one that remembers what it created). */
  answered?(result: Dispatched): Dispatched | void | Promise<Dispatched | void>;
  /** The client's response, as the operation passes it on. */
  replied?(response: Response): Response | Promise<Response>;
  /** A Responses call answered as a chat: the response it becomes, named `id` (kept where the operation keeps it). */
  bridged?(id: string): BridgedResponse;
}

/** Whether one of the handlers keeps what `id` names. */
export const keptByGateway = (handlers: readonly OperationHandler[] | undefined, id: string) => handlers?.some((handler) => handler.ownsId?.(id)) === true;

/** The key the first handler that pins one gives the call; undefined, without waiting, when none does. */
export function keyPinnedByHandler(handlers: readonly OperationHandler[] = [], call: InferenceCall, primary: ModelRef): string | undefined | Promise<string | undefined> {
  for (const handler of handlers) {
    const pinned = handler.pinnedKey?.(call, primary, handlers);
    if (pinned !== undefined) return pinned;
  }
  return undefined;
}

/** The exchange of the first run that makes its own upstream calls; undefined when the adapter's one call is made. */
export function ownExchangeOf(runs: readonly OperationRun[]): OwnExchange | undefined {
  for (const run of runs) if (run.exchange) return run.exchange;
  return undefined;
}

/** The upstream's answer passed through each run that takes part in the call, in order. */
export async function answeredThrough(runs: readonly OperationRun[], result: Dispatched): Promise<Dispatched> {
  for (const run of runs) {
    const handed = await run.answered?.(result);
    if (handed) result = handed;
  }
  return result;
}

/** Each handler's part in a call, run in order before the upstream call; waited for only when a handler has to wait. */
export function operationRuns(handlers: readonly OperationHandler[] = [], call: InferenceCall, context: RequestContext): readonly OperationRun[] | Promise<readonly OperationRun[]> {
  // Asked of every call, and most take no part: no array, iterator or closure unless one does.
  let runs: OperationRun[] | undefined;
  for (let index = 0; index < handlers.length; index++) {
    const run = handlers[index]!.before?.(call, context);
    if (run instanceof Promise) return runsOnceWaited(runs ?? [], run, handlers.slice(index + 1), call, context);
    if (run) (runs ??= []).push(run);
  }
  return runs ?? NO_RUNS;
}

const NO_RUNS: readonly OperationRun[] = Object.freeze([]);

async function runsOnceWaited(runs: OperationRun[], waiting: Promise<OperationRun | undefined>, rest: readonly OperationHandler[], call: InferenceCall, context: RequestContext): Promise<readonly OperationRun[]> {
  const waited = await waiting;
  return [...runs, ...(waited ? [waited] : []), ...(await operationRuns(rest, call, context))];
}

/** The response a Responses call answered as a chat becomes: as the first run that keeps it says, else only named. */
export function bridgedThrough(runs: readonly OperationRun[], id: string): BridgedResponse {
  for (const run of runs) if (run.bridged) return run.bridged(id);
  return { id };
}

/** The client's response, passed through each run that takes part in the call. */
export function repliedThrough(runs: readonly OperationRun[], response: Response): Response | Promise<Response> {
  if (runs.length === 0) return response;
  const passing = runs.filter((run) => run.replied);
  if (passing.length === 0) return response;
  return passing.reduce<Promise<Response>>(async (reply, run) => run.replied!(await reply), Promise.resolve(response));
}

/** The answer of the first handler that answers a provider-object call itself; undefined when none does. */
export function answeredByHandler(handlers: readonly OperationHandler[] | undefined, operation: ProviderObjectOperation, request: Request, forwarded: Forwarded, mountProvider: string | undefined): Promise<Response> | undefined {
  for (const handler of handlers ?? []) {
    const answered = handler.answer?.(operation, request, forwarded, mountProvider);
    if (answered) return answered;
  }
  return undefined;
}
