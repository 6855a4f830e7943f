import type { ClientCapabilities, CreateMessageResult, ElicitResult, JSONRPCNotification, ListRootsResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallerAnswers } from "../session-links";
import type { RpcOutcome } from "./dispatch";

/** The requests an upstream may send its caller during a call, by the client capability each needs. */
export const INPUT_METHODS = { elicitation: "elicitation/create", sampling: "sampling/createMessage", roots: "roots/list" } as const;
export type InputCapability = keyof typeof INPUT_METHODS;
export type InputMethod = (typeof INPUT_METHODS)[InputCapability];
/** The part of a client's capabilities that lets a server ask it for input. */
export type InputCapabilities = Pick<ClientCapabilities, InputCapability>;

/**
 * Where an upstream may name the key its request goes under in `inputRequests` (`_meta` of the
 * request): a key that stays the same from one call to the next lets a client answer up front.
 * Without it the gateway numbers the requests of a call.
 */
export const INPUT_KEY_META = "ai-gateway/inputKey";

/** Whether a value is a valid result of the input method (the caller's answer). */
export type AnswerCheck = (method: InputMethod, answer: unknown) => boolean;

export type Notify = (notification: JSONRPCNotification) => void;

const INTERNAL_ERROR = -32603;

interface WaitingRequest {
  method: InputMethod;
  params: Record<string, unknown>;
  answer(result: unknown): void;
}

/** One round's end: the call's outcome, or what it waits on from the caller. */
export type Round = { outcome: RpcOutcome } | { inputRequests: Record<string, { method: InputMethod; params: Record<string, unknown> }> };

/** The upstream's params as the caller sees them: without the gateway's key hint. */
function forwarded(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params._meta as Record<string, unknown> | undefined;
  if (!meta || !(INPUT_KEY_META in meta)) return params;
  const { [INPUT_KEY_META]: _hint, ...kept } = meta;
  const { _meta: _dropped, ...rest } = params;
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}

/**
 * A call made over the stateless revision whose upstream may ask the caller for input: the
 * upstream's requests (sampling, elicitation, roots) wait here until the caller retries with its
 * answers, while the upstream call stays open. Each round ends with the outcome, or with the
 * requests waiting once no other has come for `gatherMs` (an upstream often asks several at once).
 */
export class HeldCall {
  readonly id = crypto.randomUUID();
  /** Rounds answered so far: a state names the round it was issued for, so it is used once. */
  round = 0;
  private readonly waiting = new Map<string, WaitingRequest>();
  private readonly stop = new AbortController();
  private readonly listeners = new Set<() => void>();
  private outcome?: RpcOutcome;
  private notify: Notify = () => {};
  private numbered = 0;

  /** `early`: answers the first request brought along (keys an upstream names itself), used if its request comes. */
  constructor(
    private readonly gatherMs: number,
    private readonly check: AnswerCheck,
    private readonly early: Record<string, unknown> = {},
  ) {}

  get ended(): boolean {
    return this.outcome !== undefined;
  }

  /** The call's answers to its upstream's requests, for what the caller declared. */
  answers(declared: InputCapabilities): CallerAnswers {
    return {
      ...(declared.elicitation ? { elicitation: (params, signal) => this.ask(INPUT_METHODS.elicitation, params, signal) as Promise<ElicitResult> } : {}),
      ...(declared.sampling ? { sampling: (params, signal) => this.ask(INPUT_METHODS.sampling, params, signal) as Promise<CreateMessageResult> } : {}),
      ...(declared.roots ? { roots: (params, signal) => this.ask(INPUT_METHODS.roots, params ?? {}, signal) as Promise<ListRootsResult> } : {}),
      log: (notification) => this.notify({ jsonrpc: "2.0", ...notification }),
    };
  }

  /** Runs the call; `run` gets where its notifications go (the current round's stream) and the signal that cancels it. */
  start(run: (notify: Notify, signal: AbortSignal) => Promise<RpcOutcome>): void {
    // The id is the retry's, set when a round answers with this outcome.
    const failed: RpcOutcome = { jsonrpc: "2.0", id: 0, error: { code: INTERNAL_ERROR, message: "the gateway could not run the call" } };
    void run((notification) => this.notify(notification), this.stop.signal)
      .catch(() => failed)
      .then((outcome) => {
        this.outcome = outcome;
        this.changed();
      });
  }

  cancel(reason: string): void {
    this.stop.abort(new Error(reason));
  }

  /**
   * Gives the caller's answers to the requests waiting for them, or says which one is not a
   * valid result (then none is given). Keys of no waiting request are ignored.
   */
  deliver(responses: Record<string, unknown>): string | undefined {
    const answered = [...this.waiting].filter(([key]) => responses[key] !== undefined);
    const invalid = answered.find(([key, request]) => !this.check(request.method, responses[key]));
    if (invalid) return `inputResponses['${invalid[0]}'] is not a valid result of ${invalid[1].method}`;
    for (const [key, request] of answered) request.answer(responses[key]);
    return undefined;
  }

  /** The next round, its notifications to `notify`; the caller gone before it ends cancels the call. */
  next(notify: Notify, signal: AbortSignal): Promise<Round> {
    this.notify = notify;
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const gone = () => this.cancel("the caller closed the request");
      const finish = (round: Round) => {
        clearTimeout(timer);
        this.listeners.delete(check);
        signal.removeEventListener("abort", gone);
        this.notify = () => {};
        resolve(round);
      };
      const check = () => {
        if (this.outcome) return finish({ outcome: this.outcome });
        if (this.waiting.size === 0) return;
        clearTimeout(timer);
        timer = setTimeout(() => finish({ inputRequests: this.requests() }), this.gatherMs);
      };
      this.listeners.add(check);
      if (signal.aborted) gone();
      else signal.addEventListener("abort", gone, { once: true });
      check();
    });
  }

  private requests(): Record<string, { method: InputMethod; params: Record<string, unknown> }> {
    return Object.fromEntries([...this.waiting].map(([key, { method, params }]) => [key, { method, params }]));
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private ask(method: InputMethod, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const key = this.keyFor(method, params);
    const early = this.early[key];
    delete this.early[key];
    if (early !== undefined && this.check(method, early)) return Promise.resolve(early);
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const forget = () => {
        this.waiting.delete(key);
        reject(signal.reason);
      };
      signal.addEventListener("abort", forget, { once: true });
      this.waiting.set(key, {
        method,
        params: forwarded(params),
        answer: (result) => {
          signal.removeEventListener("abort", forget);
          this.waiting.delete(key);
          resolve(result);
        },
      });
      this.changed();
    });
  }

  /** The upstream's own key when it names one, else the method's short name numbered; never one already waiting. */
  private keyFor(method: InputMethod, params: Record<string, unknown>): string {
    const hint = (params._meta as Record<string, unknown> | undefined)?.[INPUT_KEY_META];
    const base = typeof hint === "string" && hint !== "" ? hint : `${method.split("/")[0]}-${++this.numbered}`;
    let key = base;
    for (let suffix = 2; this.waiting.has(key); suffix++) key = `${base}-${suffix}`;
    return key;
  }
}
