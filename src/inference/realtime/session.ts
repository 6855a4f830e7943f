import type { Server, ServerWebSocket } from "bun";
import { badRequest, GatewayError, upgradeRequired } from "../../http/errors";
import type { Attempt } from "../../db/schema/types";
import { type AdmittedCall, admitCall, assertPinnedKeyOfTargets, failureOutcome, fallbacksOf, type Inference, type InferenceCall } from "../handle";
import type { ModelRef } from "../model-ref";
import { eventTypeOf, responseOf, responseSummary, sessionModelOf } from "./events";
import { type Answered, attemptOn, closeOtherSides, endedSession, type OpenedUpstream, openFirstTarget } from "./upstream-socket";

/** The subprotocol OpenAI's SDK offers, and the one that carries its key where a browser cannot send headers. */
const REALTIME_PROTOCOL = "realtime";
const KEY_PROTOCOL = "openai-insecure-api-key.";

const offeredProtocols = (request: Request) => (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((protocol) => protocol.trim());

/**
 * A socket opened where headers cannot be sent (a browser) carries its key in a subprotocol
 * (OpenAI's SDK) or in the query (`api-key` or `Authorization`, Azure's): as a header it is read
 * like any other key (a virtual key, say).
 */
function withKeyAsHeader(request: Request, protocols: readonly string[]): Request {
  const query = new URL(request.url).searchParams;
  const protocolKey = protocols.find((protocol) => protocol.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length);
  const bearer = protocolKey ? `Bearer ${protocolKey}` : query.get("Authorization");
  const apiKey = query.get("api-key");
  if ((!bearer || request.headers.has("authorization")) && (!apiKey || request.headers.has("api-key"))) return request;
  const headers = new Headers(request.headers);
  if (bearer && !headers.has("authorization")) headers.set("authorization", bearer);
  if (apiKey && !headers.has("api-key")) headers.set("api-key", apiKey);
  return new Request(request.url, { headers });
}

type ClientSocket = ServerWebSocket<unknown>;

/**
 * One Realtime session: the client's socket and the provider's, each event passed on as it
 * came. The session is a request, admitted when it opens and logged when it ends; each response
 * the model gives in it is one more, admitted when the provider starts it (a virtual key past its
 * limits gets an `error` event, and the response is cancelled) and logged and charged with its
 * usage when it is done.
 */
class RealtimeSession {
  private client: ClientSocket | undefined;
  /** What the provider said before the client's socket was open (its `session.created`). */
  private readonly early: Array<string | ArrayBuffer> = [];
  private readonly responses = new Map<string, Promise<AdmittedCall | undefined>>();
  private ended = false;

  private readonly upstream: WebSocket;
  /** A call's sideband starts with the model unknown (`*`): the provider's `session.created` names it. */
  private target: ModelRef;
  private readonly keyId: string | undefined;
  private readonly isFallback: boolean;

  constructor(
    private readonly inference: Inference,
    private readonly call: InferenceCall,
    private readonly session: AdmittedCall,
    opened: OpenedUpstream,
    /** How the provider's socket was opened: the session's log shows them. */
    private readonly attempts: readonly Attempt[],
  ) {
    ({ upstream: this.upstream, target: this.target, keyId: this.keyId, isFallback: this.isFallback } = opened);
  }

  /** Starts relaying the provider's side, once the client's socket is upgraded (its events come on later turns). */
  listen(): void {
    this.upstream.binaryType = "arraybuffer";
    this.upstream.addEventListener("message", (event) => this.fromProvider(event.data as string | ArrayBuffer));
    this.upstream.addEventListener("close", (event) => this.end("provider", event.code, event.reason));
  }

  /** What answered: the target (its model named by the provider, for a call's sideband) and key the socket was opened on. */
  private get answered(): Answered {
    return { target: this.target, keyId: this.keyId, isFallback: this.isFallback };
  }

  /** Bun's handlers for the client's socket once upgraded. */
  readonly handlers = {
    open: (socket: ClientSocket) => {
      this.client = socket;
      for (const message of this.early.splice(0)) socket.send(message);
      if (this.ended) socket.close(1011, "the provider closed the session");
    },
    message: (_socket: ClientSocket, message: string | Buffer) => {
      if (this.upstream.readyState === WebSocket.OPEN) this.upstream.send(message);
    },
    close: (_socket: ClientSocket, code: number, reason: string) => this.end("client", code, reason),
  };

  private fromProvider(message: string | ArrayBuffer): void {
    if (this.client) this.client.send(message);
    else this.early.push(message);
    if (typeof message !== "string") return;
    const type = eventTypeOf(message);
    if (type === "session.created" && this.target.model === "*") this.target = { ...this.target, model: sessionModelOf(message) ?? "*" };
    else if (type === "response.created") this.responseStarted(message);
    else if (type === "response.done") void this.responseDone(message);
  }

  private responseStarted(message: string): void {
    const id = responseOf(message).id;
    if (!id) return;
    const admitted = admitCall(this.inference, { ...this.call, operation: "realtime_response" }).catch((error: unknown) => {
      this.refuse(id, error);
      return undefined;
    });
    this.responses.set(id, admitted);
  }

  /** A response the hooks refused (a virtual key past its limits) is cancelled, and the client told why. */
  private refuse(responseId: string, error: unknown): void {
    const refusal = error instanceof GatewayError ? error : new GatewayError({ status: 500, errorType: "gateway_internal", message: "the response could not be admitted" });
    if (this.upstream.readyState === WebSocket.OPEN) this.upstream.send(JSON.stringify({ type: "response.cancel", response_id: responseId }));
    const { error: body } = refusal.toBody();
    this.client?.send(JSON.stringify({ type: "error", event_id: `event_gw_${crypto.randomUUID()}`, error: { type: body.type, code: body.code, message: body.message, param: null, event_id: null } }));
  }

  private async responseDone(message: string): Promise<void> {
    const response = responseOf(message);
    const admitted = response.id ? this.responses.get(response.id) : undefined;
    if (!admitted) return;
    this.responses.delete(response.id!);
    const call = await admitted;
    if (!call) return;
    const summary = responseSummary(response);
    const failed = response.status === "failed";
    const error = failed ? new GatewayError({ status: 502, errorType: "provider_error", message: response.status_details?.error?.message ?? "the response failed" }) : undefined;
    call.settle({
      status: failed ? 502 : 200,
      error,
      answered: this.answered,
      attempts: [attemptOn(this.answered)],
      summary,
      cost: summary.usage ? this.inference.price?.({ target: this.target, keyId: this.keyId, usage: summary.usage, context: call.context }) : undefined,
    });
  }

  /**
   * Either side closed: the other follows with the same code where it may be sent, responses cut
   * short are logged as such, then the session, failed when the provider dropped it.
   */
  private end(by: "client" | "provider", code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    closeOtherSides(code, reason, this.upstream, this.client);
    for (const admitted of this.responses.values()) {
      void admitted.then((call) => call?.settle({ status: 200, answered: this.answered, attempts: [], summary: { toolCallNames: [], truncated: true } }));
    }
    this.responses.clear();
    this.session.settle(endedSession("Realtime", this.answered, this.attempts, by, code));
  }
}

/** What a Realtime socket opens: a session of a model, or the sideband of a call (WebRTC, SIP) the provider already runs. */
export interface RealtimeTarget {
  /** `provider/model` as the client named it; undefined when it named none (`param` says where it should have). */
  model: string | undefined;
  param: string;
  /** The call's id (`call_id`), for a sideband connection: it goes to the provider named, the mount's, else OpenAI. */
  callId?: string;
  mountProvider: string | undefined;
}

/**
 * A Realtime WebSocket (`GET {mount}/realtime?model=…` or `?call_id=…`, or Azure's
 * `?deployment=…`) with `Upgrade: websocket`: the session is admitted like any request (a
 * virtual key in a header, the `openai-insecure-api-key.` subprotocol or Azure's `api-key`
 * query), the provider's socket is opened with the gateway's key, then the client's is upgraded.
 * Every failure before that is an HTTP error the client can read.
 */
export async function openRealtimeSession(inference: Inference, request: Request, server: Server<unknown>, { model: named, param, callId, mountProvider }: RealtimeTarget): Promise<Response | undefined> {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") throw upgradeRequired("the Realtime API");
  // A call's sideband names no model: the call has one already.
  const model = named ?? (callId ? `${request.headers.get("x-gw-provider") ?? mountProvider ?? "openai"}/*` : undefined);
  if (!model) throw badRequest(`${param}: a Realtime session names its model in the \`${param}\` query parameter (or a call in \`call_id\`)`, param);
  const protocols = offeredProtocols(request);
  // The session and each of its responses are logged under one session id: the client's, else a new one.
  const sessionId = request.headers.get("x-gw-session-id") ?? Bun.randomUUIDv7();
  const body = callId ? { model, call_id: callId } : { model };
  // A socket carries no body: fallbacks come in `x-gw-fallbacks`.
  const fallbacks = fallbacksOf({}, request.headers);
  const call: InferenceCall = { operation: "realtime", format: "openai", body, model, fallbacks, stream: true, request: withKeyAsHeader(request, protocols), mountProvider, sessionId };
  const session = await admitCall(inference, call);
  const attempts: Attempt[] = [];
  try {
    assertPinnedKeyOfTargets(inference.providers, session.context.targets, request.headers.get("x-gw-api-key-id"));
    const opened = await openFirstTarget(inference, "realtime", session, request, body, attempts);
    const relay = new RealtimeSession(inference, call, session, opened, attempts);
    const headers = protocols.includes(REALTIME_PROTOCOL) ? { "sec-websocket-protocol": REALTIME_PROTOCOL } : undefined;
    if (!server.upgrade(request, { headers, data: relay.handlers })) {
      opened.upstream.close();
      throw upgradeRequired("the Realtime API");
    }
    relay.listen();
    return undefined;
  } catch (error) {
    if (error instanceof GatewayError) session.settle({ ...failureOutcome(error), attempts });
    throw error;
  }
}
