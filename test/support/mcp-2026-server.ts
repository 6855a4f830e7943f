import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { answerStateless } from "./mcp-http-server";
import { serveTools, text } from "./mcp-tools";

/**
 * An MCP server of the 2026-07-28 revision, written from the spec: every POST is one request with
 * the client in `_meta`, checked against the mirrored headers (400, -32020 when they differ);
 * `server/discover`; a tool that needs the user's input (`input_required`, an elicitation the
 * client answers, `requestState` echoed back); `subscriptions/listen` for list changes. With
 * `handshakeToo` it also serves the 2025-11-25 handshake (an SDK server per request), as a server
 * between the two revisions would; without, it refuses it.
 */

const VERSION = "2026-07-28";
const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

export interface ReceivedRequest {
  method: string;
  params: Record<string, unknown> & { _meta: Record<string, unknown> };
  headers: Headers;
}

export interface Mcp2026Server {
  readonly url: string;
  /** Every 2026-07-28 request received, in order. */
  readonly received: ReceivedRequest[];
  /** How many initialize handshakes (2025-11-25 and older) it was asked for. */
  readonly handshakes: number;
  /** Adds a tool and tells every open subscriptions/listen stream. */
  addTool(name: string): void;
  stop(): Promise<void>;
}

interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const TOOLS: ToolDefinition[] = [
  { name: "echo", description: "Repeats a text, for a region", inputSchema: { type: "object", properties: { text: { type: "string" }, region: { type: "string", "x-mcp-header": "Region" } } } },
  { name: "approve", description: "Asks the user to approve, then says what they chose", inputSchema: { type: "object", properties: {} } },
];

const encoder = new TextEncoder();
const sse = (message: unknown) => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
const rpcError = (status: number, id: unknown, code: number, message: string) => Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status });
const complete = (id: unknown, result: Record<string, unknown>) => Response.json({ jsonrpc: "2.0", id, result: { ...result, resultType: "complete" } });

const SENTINEL = /^=\?base64\?(.*)\?=$/;

/** A mirrored header's value: `=?base64?…?=` is the UTF-8 text it encodes. */
function decoded(value: string | null): string | null {
  const encoded = value === null ? undefined : SENTINEL.exec(value)?.[1];
  return encoded === undefined ? value : Buffer.from(encoded, "base64").toString("utf8");
}

/** The headers the revision has the client mirror from the body; what differs, if anything. */
function headerMismatch(request: ReceivedRequest): string | undefined {
  const { headers, method, params } = request;
  if (headers.get("mcp-protocol-version") !== VERSION) return "MCP-Protocol-Version";
  if (headers.get("mcp-method") !== method) return "Mcp-Method";
  if (method === "tools/call" && headers.get("mcp-name") !== params.name) return "Mcp-Name";
  const region = (params.arguments as Record<string, unknown> | undefined)?.region;
  if (method === "tools/call" && params.name === "echo" && decoded(headers.get("mcp-param-region")) !== (region === undefined ? null : String(region))) return "Mcp-Param-Region";
  return undefined;
}

/** The approve tool: first an elicitation with a state to send back, then the answer it brought. */
function approve(id: unknown, params: ReceivedRequest["params"]): Response {
  const answer = (params.inputResponses as Record<string, { action: string; content?: Record<string, unknown> }> | undefined)?.confirm;
  if (!answer) {
    if (!(params._meta[META_CAPABILITIES] as Record<string, unknown>).elicitation) return rpcError(400, id, -32021, "approve needs a client that declares elicitation");
    const confirm = { method: "elicitation/create", params: { mode: "form", message: "Approve the deployment?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } } };
    return Response.json({ jsonrpc: "2.0", id, result: { resultType: "input_required", inputRequests: { confirm }, requestState: "round-1" } });
  }
  if (params.requestState !== "round-1") return rpcError(400, id, -32602, "requestState was not sent back");
  return complete(id, text(`approval: ${answer.action} ${JSON.stringify(answer.content ?? {})}`));
}

export function startMcp2026Server(options: { handshakeToo?: boolean } = {}): Mcp2026Server {
  const received: ReceivedRequest[] = [];
  const tools = [...TOOLS];
  /** Each open listen stream: sends a notification tagged with its subscription. */
  const listeners = new Set<(method: string) => void>();
  let handshakes = 0;

  function listen(id: unknown): Response {
    let heard: ((method: string) => void) | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        heard = (method) => controller.enqueue(sse({ jsonrpc: "2.0", method, params: { _meta: { [SUBSCRIPTION]: id } } }));
        listeners.add(heard);
        heard("notifications/subscriptions/acknowledged");
      },
      cancel: () => void listeners.delete(heard!),
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }

  function answer(id: unknown, request: ReceivedRequest): Response {
    const { method, params } = request;
    switch (method) {
      case "server/discover":
        return complete(id, { supportedVersions: [VERSION], capabilities: { tools: { listChanged: true } }, instructions: "Say please.", _meta: { "io.modelcontextprotocol/serverInfo": { name: "desk-2026", version: "2.0.0" } } });
      case "tools/list":
        return complete(id, { tools, ttlMs: 0, cacheScope: "public" });
      case "subscriptions/listen":
        return listen(id);
      case "tools/call":
        if (params.name === "approve") return approve(id, params);
        return complete(id, text(`echo: ${String((params.arguments as Record<string, unknown>).text)} (${String((params.arguments as Record<string, unknown>).region ?? "anywhere")})`));
    }
    return rpcError(404, id, -32601, `Method not found: ${method}`);
  }

  async function handshake(request: Request): Promise<Response> {
    handshakes++;
    if (!options.handshakeToo) return rpcError(400, null, -32022, `Unsupported protocol version: this server speaks ${VERSION} only`);
    const mcp = new Server({ name: "desk-2025", version: "1.0.0" }, { capabilities: { tools: {} } });
    serveTools(mcp, { echo: { description: "Repeats a text", properties: { text: { type: "string" } }, run: (args) => text(`echo over the handshake: ${String(args.text)}`) } });
    return answerStateless(mcp, request);
  }

  async function handle(request: Request): Promise<Response> {
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
    const body = (await request.clone().json()) as { id?: unknown; method: string; params?: ReceivedRequest["params"] };
    if (body.params?._meta?.[META_VERSION] !== VERSION) return handshake(request);
    const received_ = { method: body.method, params: body.params, headers: request.headers };
    received.push(received_);
    const mismatch = headerMismatch(received_);
    if (mismatch) return rpcError(400, body.id, -32020, `Header mismatch: ${mismatch}`);
    return answer(body.id, received_);
  }

  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: handle });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    received,
    get handshakes() {
      return handshakes;
    },
    addTool(name) {
      tools.push({ name, description: `Added later: ${name}`, inputSchema: { type: "object", properties: {} } });
      for (const heard of listeners) heard("notifications/tools/list_changed");
    },
    stop: () => server.stop(true),
  };
}
