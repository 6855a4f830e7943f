import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId, Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Discovery, initializeResultOf } from "./discover";
import { type ClientIdentity, enveloped } from "./envelope";
import { exchange, type RpcAnswer, type StatelessEndpoint } from "./exchange";
import { answerWithInput, InputRefused, type InputRequest } from "./input-rounds";
import { type ListenFilter, ListenStream } from "./listen";

export interface StatelessTransportOptions {
  endpoint: StatelessEndpoint;
  /** What `server/discover` said, which answers the `Client`'s initialize. */
  discovery: Discovery;
  identity: ClientIdentity;
  /** Listen for list changes (the shared connection); otherwise only for the resources subscribed to. */
  watchLists: boolean;
}

/** An answer given here, without the envelope. */
type Answer = { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };

const isAnswer = (message: JSONRPCMessage): message is RpcAnswer => "id" in message && !("method" in message);

/** The revision's own field stays on this side: the `Client` reads results as the earlier revisions had them. */
function withoutResultType(answer: RpcAnswer): RpcAnswer {
  if (!("result" in answer)) return answer;
  const { resultType: _resultType, ...result } = answer.result;
  return { ...answer, result };
}

/**
 * The MCP SDK's `Transport` speaking the 2026-07-28 revision, so that its `Client` (and the
 * catalogue, executor, session links and OAuth above it) works unchanged: initialize is answered
 * from `server/discover`, each request is one POST carrying the client in `_meta`, `input_required`
 * answers are put to the `Client` as the server's requests were, and notifications come from
 * subscriptions/listen. Cancelling a request closes its POST.
 */
export class StatelessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  private readonly calls = new Map<RequestId, AbortController>();
  private readonly inputs = new Map<string, PromiseWithResolvers<unknown>>();
  private readonly schemas = new Map<string, unknown>();
  private readonly subscribed = new Set<string>();
  private readonly listen: ListenStream;
  private toolsListed = false;
  private inputCount = 0;
  private closed = false;

  constructor(private readonly options: StatelessTransportOptions) {
    this.listen = new ListenStream(options.endpoint, () => options.identity, (notification) => this.onmessage?.(notification), () => void this.close());
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (isAnswer(message)) return this.inputAnswered(message);
    if (!("id" in message)) return this.notified(message);
    if (this.closed) throw new Error("the connection is closed");
    const local = await this.answeredHere(message);
    if (local) return this.onmessage?.({ jsonrpc: "2.0", id: message.id, ...local } as JSONRPCMessage);
    await this.forwarded(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listen.close();
    for (const call of this.calls.values()) call.abort();
    for (const input of this.inputs.values()) input.reject(new Error("the connection is closed"));
    this.onclose?.();
  }

  /** The methods the revision has no request for: the handshake, the session's log level and subscriptions. */
  private async answeredHere(request: JSONRPCRequest): Promise<Answer | undefined> {
    const params = request.params ?? {};
    switch (request.method) {
      case "initialize":
        // A server without subscriptions/listen is still served, without notifications.
        void this.listen.listen(this.filter()).catch(() => undefined);
        return { result: initializeResultOf(this.options.discovery) };
      case "logging/setLevel":
        this.options.identity.logLevel = String(params.level);
        return { result: {} };
      case "resources/subscribe":
      case "resources/unsubscribe":
        return this.subscription(request.method === "resources/subscribe", String(params.uri));
    }
    return undefined;
  }

  private filter(): ListenFilter {
    const offered = this.options.discovery.capabilities;
    const lists = this.options.watchLists;
    return {
      ...(lists && offered.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(lists && offered.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(lists && offered.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(this.subscribed.size > 0 ? { resourceSubscriptions: [...this.subscribed] } : {}),
    };
  }

  private async subscription(subscribe: boolean, uri: string): Promise<Answer> {
    if (subscribe) this.subscribed.add(uri);
    else this.subscribed.delete(uri);
    try {
      await this.listen.listen(this.filter());
      return { result: {} };
    } catch (error) {
      return { error: { code: -32603, message: error instanceof Error ? error.message : String(error) } };
    }
  }

  /** Sends a request, with its input rounds; a ping (gone from the revision) is a `server/discover` whose answer is dropped. */
  private async forwarded(request: JSONRPCRequest): Promise<void> {
    const call = new AbortController();
    this.calls.set(request.id, call);
    try {
      await this.listToolsFor(request, call.signal);
      const sent = request.method === "ping" ? { ...request, method: "server/discover" } : request;
      const answer = await answerWithInput(sent, (next) => this.posted(next, call.signal), (key, input) => this.askClient(request.id, key, input, call.signal), call.signal);
      if (request.method === "tools/list" && "result" in answer) this.noteTools(answer.result.tools);
      this.onmessage?.(request.method === "ping" && "result" in answer ? { ...answer, result: {} } : withoutResultType(answer));
    } catch (error) {
      // A request cancelled (or timed out) is already settled for the `Client`.
      if (!call.signal.aborted) throw error;
    } finally {
      this.calls.delete(request.id);
    }
  }

  private posted(request: JSONRPCRequest, signal: AbortSignal): Promise<RpcAnswer> {
    const { body, headers } = enveloped(request, this.options.identity, (tool) => this.schemas.get(tool));
    return exchange(this.options.endpoint, body, headers, signal, (notification) => this.onmessage?.(notification));
  }

  /** A tool's `Mcp-Param-*` headers need its input schema: a session that never listed the tools lists them once. */
  private async listToolsFor(request: JSONRPCRequest, signal: AbortSignal): Promise<void> {
    if (request.method !== "tools/call" || this.toolsListed || this.schemas.has(String(request.params?.name))) return;
    this.toolsListed = true;
    let cursor: unknown;
    do {
      const answer = await this.posted({ jsonrpc: "2.0", id: `tools-${String(request.id)}`, method: "tools/list", params: cursor ? { cursor } : {} }, signal);
      if ("error" in answer) return;
      this.noteTools(answer.result.tools);
      cursor = answer.result.nextCursor;
    } while (cursor);
  }

  private noteTools(tools: unknown): void {
    this.toolsListed = true;
    for (const tool of Array.isArray(tools) ? (tools as Tool[]) : []) this.schemas.set(tool.name, tool.inputSchema);
  }

  /** An input request put to the `Client` as the server's own request, under an id of this transport's. */
  private askClient(requestId: RequestId, key: string, input: InputRequest, signal: AbortSignal): Promise<unknown> {
    const id = `input-${++this.inputCount}-${String(requestId)}-${key}`;
    const answer = Promise.withResolvers<unknown>();
    this.inputs.set(id, answer);
    const cancel = () => {
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "the request was cancelled" } });
      answer.reject(signal.reason);
    };
    signal.addEventListener("abort", cancel, { once: true });
    this.onmessage?.({ jsonrpc: "2.0", id, method: input.method, ...(input.params ? { params: input.params } : {}) } as JSONRPCMessage);
    return answer.promise.finally(() => {
      signal.removeEventListener("abort", cancel);
      this.inputs.delete(id);
    });
  }

  private inputAnswered(message: RpcAnswer): void {
    const waiting = this.inputs.get(String(message.id));
    if (!waiting) return;
    if ("result" in message) waiting.resolve(message.result);
    else waiting.reject(new InputRefused(message.error.code, message.error.message, message.error.data));
  }

  /** The revision has no notifications from the client over HTTP: a cancellation closes its request's POST; the rest have nowhere to go. */
  private notified(notification: JSONRPCNotification): void {
    if (notification.method !== "notifications/cancelled") return;
    this.calls.get(notification.params?.requestId as RequestId)?.abort();
  }
}
