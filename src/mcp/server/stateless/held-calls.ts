import type { McpServerSdk } from "../../sdk";
import type { RpcOutcome } from "./dispatch";
import { type AnswerCheck, HeldCall, type InputMethod, type Notify } from "./held-call";
import { readState, type Signer, signState, type StateBinding } from "./request-state";
import type { RequestId } from "./wire";

export interface HeldCallSettings {
  /** How long a call waits for its caller's retry before it is cancelled upstream. */
  holdMs: number;
  /** How long after an upstream's request to the caller the round waits for more before it answers. */
  gatherMs: number;
  /** At most this many calls wait at once on this node. */
  maxHeld: number;
}

export interface Held {
  call: HeldCall;
  binding: StateBinding;
  expiry?: ReturnType<typeof setTimeout>;
}

/** A retry's call, its answers given; or why the retry is refused. */
export type Resumed = { held: Held } | { refused: string };

/**
 * The calls of this node that wait on their callers' answers (`input_required`), by id. A call is
 * held in memory on the node that has its upstream call open: a retry that reaches another node
 * names no call there and is refused like an expired state.
 */
export class HeldCalls {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly settings: HeldCallSettings,
    private readonly signer: Signer,
    private readonly check: AnswerCheck,
  ) {}

  hasRoom(): boolean {
    return this.held.size < this.settings.maxHeld;
  }

  /** A new call that may ask for input; `early` are answers the request brought without a state. */
  hold(binding: StateBinding, early: Record<string, unknown>): Held {
    const held = { call: new HeldCall(this.settings.gatherMs, this.check, early), binding };
    this.held.set(held.call.id, held);
    return held;
  }

  /** The call a retry's state names, verified against the retry's caller and request, with the retry's answers given to it. */
  resume(binding: StateBinding, state: string, responses: Record<string, unknown>): Resumed {
    const claims = readState(this.signer, state, binding, Date.now());
    if (typeof claims === "string") return { refused: claims };
    const held = this.held.get(claims.call);
    if (!held || held.call.round !== claims.round) {
      return { refused: "requestState names no call waiting on this gateway node: it ended, expired or was answered already, or waits on another node; send the request again without it" };
    }
    const invalid = held.call.deliver(responses);
    if (invalid) return { refused: invalid };
    clearTimeout(held.expiry);
    held.call.round++;
    return { held };
  }

  /** The held call's next round as the reply to request `id`: its outcome, or `input_required` with a state for the retry. */
  async next(held: Held, id: RequestId, notify: Notify, signal: AbortSignal): Promise<RpcOutcome> {
    const round = await held.call.next(notify, signal);
    if ("outcome" in round) {
      this.held.delete(held.call.id);
      return { ...round.outcome, id };
    }
    const expiresAt = Date.now() + this.settings.holdMs;
    held.expiry = setTimeout(() => this.expire(held), this.settings.holdMs);
    const requestState = signState(this.signer, { call: held.call.id, round: held.call.round, expiresAt }, held.binding);
    return { jsonrpc: "2.0", id, result: { resultType: "input_required", inputRequests: round.inputRequests, requestState } };
  }

  close(): void {
    for (const held of [...this.held.values()]) this.expire(held, "the gateway is shutting down");
  }

  private expire(held: Held, reason = "the caller did not answer in time"): void {
    clearTimeout(held.expiry);
    this.held.delete(held.call.id);
    held.call.cancel(reason);
  }
}

/** An answer is a valid result of its method by the SDK's schemas. */
export function answerCheck(sdk: McpServerSdk): AnswerCheck {
  const schemas: Record<InputMethod, Array<{ safeParse(value: unknown): { success: boolean } }>> = {
    "elicitation/create": [sdk.ElicitResultSchema],
    "sampling/createMessage": [sdk.CreateMessageResultSchema, sdk.CreateMessageResultWithToolsSchema],
    "roots/list": [sdk.ListRootsResultSchema],
  };
  return (method, answer) => schemas[method].some((schema) => schema.safeParse(answer).success);
}
