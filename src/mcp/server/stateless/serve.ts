import type { JSONRPCNotification, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { offeredTools } from "../../tools/catalogue";
import type { CallContext } from "../../tools/executor";
import { gatewayServer, type GatewayServerDeps, identityOf } from "../gateway-server";
import { dispatchInMemory, type RpcOutcome } from "./dispatch";
import type { ListenStreams } from "./listen";
import { multiRound, type MultiRoundServing, type Produce } from "./multi-round";
import { paramHeaderMismatch } from "./param-headers";
import { sseEvent, sseResponse } from "./sse";
import { checkedRequest, META, RPC, rpcErrorResponse, type StatelessRequest, SUPPORTED_VERSIONS } from "./wire";

/** How long a caller may keep a list or the discovery result: list changes also reach its subscriptions/listen stream. */
const LIST_TTL_MS = 60_000;
/** A resource is read again each time: the gateway does not know how often the upstream changes it. */
const READ_TTL_MS = 0;

/** The capability each method of the revision needs; a method not here (initialize, ping, logging/setLevel, resources/subscribe, ...) is not served. */
const METHOD_CAPABILITY: Record<string, keyof ServerCapabilities> = {
  "tools/list": "tools",
  "tools/call": "tools",
  "resources/list": "resources",
  "resources/templates/list": "resources",
  "resources/read": "resources",
  "prompts/list": "prompts",
  "prompts/get": "prompts",
  "completion/complete": "completions",
};

const CACHE_TTL: Record<string, number> = {
  "server/discover": LIST_TTL_MS,
  "tools/list": LIST_TTL_MS,
  "resources/list": LIST_TTL_MS,
  "resources/templates/list": LIST_TTL_MS,
  "prompts/list": LIST_TTL_MS,
  "resources/read": READ_TTL_MS,
};

const SEVERITY = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

const methodNotFound = (request: StatelessRequest) => rpcErrorResponse(404, request.id, RPC.methodNotFound, `Method not found: ${request.method}`);

/** A result says whether it is complete (or needs input); a complete one that may be cached says for how long, for this caller only (what it sees depends on its key). */
function finished(outcome: RpcOutcome, method: string): RpcOutcome {
  if (!("result" in outcome) || outcome.result.resultType !== undefined) return outcome;
  const ttlMs = CACHE_TTL[method];
  return { ...outcome, result: { ...outcome.result, resultType: "complete", ...(ttlMs === undefined ? {} : { ttlMs, cacheScope: "private" }) } };
}

/** An upstream's MissingRequiredClientCapabilityError is HTTP 400 in this revision, like the gateway's own refusals. */
const statusOf = (outcome: RpcOutcome) => ("error" in outcome && outcome.error.code === RPC.missingCapability ? 400 : 200);

/** Log messages only at or above the level the request asked for, and none when it asked for none. */
function keepsNotification(notification: JSONRPCNotification, logLevel: unknown): boolean {
  if (notification.method !== "notifications/message") return true;
  const wanted = SEVERITY.indexOf(String(logLevel));
  return wanted >= 0 && SEVERITY.indexOf(String(notification.params?.level)) >= wanted;
}

function discovered(deps: GatewayServerDeps, context: CallContext, request: StatelessRequest): Response {
  const { info, capabilities, instructions } = identityOf(deps, context);
  const result = { supportedVersions: SUPPORTED_VERSIONS, capabilities, ...(instructions ? { instructions } : {}), _meta: { [META.serverInfo]: info } };
  return Response.json(finished({ jsonrpc: "2.0", id: request.id, result }, request.method));
}

/** A tools/call's `Mcp-Param-*` headers against the arguments its tool's schema marks with `x-mcp-header`. */
function paramHeadersWrong(deps: GatewayServerDeps, context: CallContext, request: StatelessRequest, headers: Headers): string | undefined {
  const tool = offeredTools(deps.registry, context.filter).find((entry) => entry.exposedName === request.params.name);
  return tool?.definition && paramHeaderMismatch(headers, tool.definition.inputSchema, request.params.arguments);
}

export interface StatelessServing extends MultiRoundServing {
  listens: ListenStreams;
  keepAliveMs: number;
}

/** One round of a request answered: JSON, or SSE when it may bring progress or log messages first. */
async function respond(serving: StatelessServing, request: StatelessRequest, httpRequest: Request, produce: Produce): Promise<Response> {
  const meta = request.params._meta;
  const streams = (meta.progressToken !== undefined || meta[META.logLevel] !== undefined) && (httpRequest.headers.get("accept") ?? "").includes("text/event-stream");
  if (!streams) {
    const outcome = await produce(() => undefined, httpRequest.signal);
    return Response.json(finished(outcome, request.method), { status: statusOf(outcome) });
  }
  const closed = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (notification: JSONRPCNotification) => {
        if (!closed.signal.aborted && keepsNotification(notification, meta[META.logLevel])) controller.enqueue(sseEvent(notification));
      };
      void produce(send, closed.signal).then((outcome) => {
        if (closed.signal.aborted) return;
        controller.enqueue(sseEvent(finished(outcome, request.method)));
        controller.close();
      });
    },
    // Closing the stream is how an HTTP caller cancels (spec: Cancellation).
    cancel: () => closed.abort(),
  });
  return sseResponse(body, serving.keepAliveMs);
}

/** The request answered by the gateway's handlers, as one round or as the round of a call that may ask its caller for input. */
function answered(serving: StatelessServing, context: CallContext, request: StatelessRequest, httpRequest: Request): Promise<Response> | Response {
  const rounds = multiRound(serving, context, request);
  if (rounds instanceof Response) return rounds;
  const produce: Produce =
    rounds ??
    ((notify, signal) => dispatchInMemory(serving.deps.sdk, gatewayServer(serving.deps, { context, subscriptions: new Set(), callsUnderway: [] }).server, request, notify, signal));
  return respond(serving, request, httpRequest, produce);
}

/**
 * The 2026-07-28 revision on /mcp and /mcp/{client}: each POST is one request that carries its
 * version and client in `_meta`, checked against the mirrored headers; server/discover and
 * subscriptions/listen are answered here, the other methods by the same handlers as a session's.
 */
export async function serveStateless(serving: StatelessServing, context: CallContext, httpRequest: Request, body: unknown): Promise<Response> {
  const request = checkedRequest(httpRequest.headers, body);
  if (request instanceof Response) return request;
  if (request.method === "server/discover") return discovered(serving.deps, context, request);
  const { capabilities } = identityOf(serving.deps, context);
  if (request.method === "subscriptions/listen") {
    const offersAny = capabilities.tools || capabilities.prompts || capabilities.resources;
    return offersAny ? serving.listens.listen(serving.deps.registry, context.filter, capabilities, request, serving.keepAliveMs) : methodNotFound(request);
  }
  const needed = METHOD_CAPABILITY[request.method];
  if (!needed || !capabilities[needed]) return methodNotFound(request);
  const wrongParam = request.method === "tools/call" ? paramHeadersWrong(serving.deps, context, request, httpRequest.headers) : undefined;
  if (wrongParam) return rpcErrorResponse(400, request.id, RPC.headerMismatch, `Header mismatch: ${wrongParam}`);
  return answered(serving, context, request, httpRequest);
}
