import { callerIdentity } from "../../caller";
import type { CallContext } from "../../tools/executor";
import { gatewayServer, type GatewayServerDeps } from "../gateway-server";
import { SessionLinks } from "../session-links";
import { dispatchInMemory, type RpcOutcome } from "./dispatch";
import { INPUT_METHODS, type InputCapabilities, type InputCapability, type Notify } from "./held-call";
import type { Held, HeldCalls } from "./held-calls";
import type { StateBinding } from "./request-state";
import { isRecord, META, RPC, rpcErrorResponse, type StatelessRequest } from "./wire";

/** The methods whose result may be `input_required` (spec: Multi Round-Trip Requests, Supported Requests). */
const MULTI_ROUND_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);

/** One round of a request: its notifications to `notify`, cancelled by `signal`. */
export type Produce = (notify: Notify, signal: AbortSignal) => Promise<RpcOutcome>;

export interface MultiRoundServing {
  deps: GatewayServerDeps;
  held: HeldCalls;
  timeouts: { timeoutMs: number; maxTimeoutMs: number };
}

/** The input capabilities the caller declared in `_meta`: the only requests its upstreams may send it. */
function declaredInputs(meta: Record<string, unknown>): InputCapabilities | undefined {
  const declared = meta[META.clientCapabilities] as Record<string, unknown>;
  const kept = (Object.keys(INPUT_METHODS) as InputCapability[]).filter((capability) => isRecord(declared[capability])).map((capability) => [capability, declared[capability]]);
  return kept.length > 0 ? (Object.fromEntries(kept) as InputCapabilities) : undefined;
}

/** A state is good for the caller, the door and the request (method, name or URI, arguments) it was issued for. */
const bindingOf = (context: CallContext, request: StatelessRequest): StateBinding => ({
  caller: callerIdentity(context.caller),
  door: context.filter.virtual ? `v/${context.filter.virtual.slug}` : (context.filter.bound ?? ""),
  method: request.method,
  target: request.params.name ?? request.params.uri,
  arguments: request.params.arguments,
});

/**
 * Starts the call on sessions of the caller's own with the upstreams, declaring what it declared:
 * the upstream's requests to it wait in the held call. The sessions end with the call, which
 * also ends the upstream's side of a call cancelled while it waits.
 */
function startHeld(serving: MultiRoundServing, context: CallContext, request: StatelessRequest, held: Held, declared: InputCapabilities): void {
  held.call.start(async (notify, signal) => {
    const links = new SessionLinks(held.call.answers(declared), declared, serving.timeouts, serving.deps.registry.reach);
    const { server } = gatewayServer(serving.deps, { context, subscriptions: new Set(), callsUnderway: [], links });
    try {
      return await dispatchInMemory(serving.deps.sdk, server, request, notify, signal);
    } finally {
      void links.close();
    }
  });
}

/**
 * How a request of the stateless revision that may need its caller's input is answered: a retry
 * (`requestState`) continues its held call; a first request from a caller that declared sampling,
 * elicitation or roots starts one. Undefined: the request takes the ordinary path. A refused
 * retry is -32602 (HTTP 400) saying why.
 */
export function multiRound(serving: MultiRoundServing, context: CallContext, request: StatelessRequest): Produce | Response | undefined {
  if (!MULTI_ROUND_METHODS.has(request.method)) return undefined;
  const { requestState, inputResponses } = request.params;
  if (inputResponses !== undefined && inputResponses !== null && !isRecord(inputResponses)) {
    return rpcErrorResponse(400, request.id, RPC.invalidParams, "inputResponses must be an object: the answers to an input_required result, by key");
  }
  const answers = isRecord(inputResponses) ? inputResponses : {};
  if (requestState !== undefined) {
    if (typeof requestState !== "string") return rpcErrorResponse(400, request.id, RPC.invalidParams, "requestState must be the string an input_required result gave");
    const resumed = serving.held.resume(bindingOf(context, request), requestState, answers);
    if ("refused" in resumed) return rpcErrorResponse(400, request.id, RPC.invalidParams, resumed.refused);
    return (notify, signal) => serving.held.next(resumed.held, request.id, notify, signal);
  }
  const declared = declaredInputs(request.params._meta);
  if (!declared || !serving.held.hasRoom()) return undefined;
  const held = serving.held.hold(bindingOf(context, request), { ...answers });
  startHeld(serving, context, request, held, declared);
  return (notify, signal) => serving.held.next(held, request.id, notify, signal);
}
