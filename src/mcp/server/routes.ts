import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Elysia } from "elysia";
import { GatewayError, notFound } from "../../http/errors";
import { type CallerAuth, callContextOf } from "../call-context";
import type { McpClientRegistry } from "../clients/registry";
import { loadMcpServerSdk, type McpServerSdk } from "../sdk";
import type { ResolvedMcpSettings } from "../../config/sections/mcp";
import type { CallContext, ToolExecutor } from "../tools/executor";
import { gatewayServer, type GatewayServerDeps, type SessionState } from "./gateway-server";
import { SessionEventStore } from "./event-store";
import { assertOriginAllowed } from "./origin-guard";
import { type CallerAnswers, SessionLinks } from "./session-links";
import { type GatewaySession, McpSessions } from "./sessions";
import { SSE_RETRY_MS, withKeepAlive } from "./sse-keepalive";
import { answerCheck, HeldCalls } from "./stateless/held-calls";
import { ListenStreams } from "./stateless/listen";
import type { Signer } from "./stateless/request-state";
import { serveStateless } from "./stateless/serve";
import { speaksStateless } from "./stateless/wire";
import type { VirtualBundle } from "../virtual/bundle";
import { type SessionUserOf, virtualServerContext } from "../virtual/access";
import { callerIdentity } from "../caller";

const SESSION_HEADER = "mcp-session-id";
/** SSE events a session keeps for callers resuming a broken stream. */
const RESUMABLE_EVENTS = 1000;
/** How long a call that asked its caller for input waits for more requests from its upstream before it answers `input_required`. */
const INPUT_GATHER_MS = 50;

const jsonRpcError = (status: number, code: number, message: string) => Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

/** GET and DELETE address a session: without its id there is nothing to stream or end. */
const withoutSession = (method: string) =>
  new GatewayError({ status: 405, errorType: "caller_method_not_allowed", message: `${method} needs the Mcp-Session-Id of a session; without one, send JSON-RPC messages with POST` });

const isInitialize = (sdk: McpServerSdk, body: unknown) => (Array.isArray(body) ? body.some((message) => sdk.isInitializeRequest(message)) : sdk.isInitializeRequest(body));

/** The session's caller answers what it declared, on the stream of its latest call under way (or its own stream). */
function answersOf(server: Server, state: SessionState, declared: { sampling?: object; elicitation?: object; roots?: object }, timeoutMs: number): CallerAnswers {
  const related = (signal: AbortSignal) => ({ relatedRequestId: state.callsUnderway.at(-1), signal, timeout: timeoutMs });
  return {
    ...(declared.sampling ? { sampling: (params, signal) => server.createMessage(params, related(signal)) } : {}),
    ...(declared.elicitation ? { elicitation: (params, signal) => server.elicitInput(params, related(signal)) } : {}),
    ...(declared.roots ? { roots: (params, signal) => server.listRoots(params, related(signal)) } : {}),
    log: (notification) => void server.notification(notification).catch(() => undefined),
  };
}

export interface McpServerOptions {
  registry: McpClientRegistry;
  executor: ToolExecutor;
  auth: CallerAuth;
  settings: ResolvedMcpSettings;
  /** Signs the `requestState` of the calls held for their callers' input. */
  secrets: Signer;
  /** The virtual servers served at /mcp/v/{slug}, by slug. */
  virtualServers?: { bundle(slug: string): VirtualBundle | undefined };
  /** The dashboard user of a session token, for virtual servers that admit users. */
  sessionUser?: SessionUserOf;
}

/** Which door a request came through: /mcp, /mcp/{client} (`bound`) or /mcp/v/{slug} (`slug`). */
type Door = { bound?: string; slug?: string };

/**
 * /mcp (every client, names prefixed per client), /mcp/{client} (one client, its own names) and
 * /mcp/v/{slug} (a virtual server: its picks under its names, to the callers it admits):
 * the gateway as an MCP server over Streamable HTTP, authenticated by virtual key (spec 5).
 * An initialize opens a session (Mcp-Session-Id): answers stream as SSE when the call sends
 * progress, logs or requests, GET opens the server's stream, DELETE ends it. A request without a
 * session is answered on its own in JSON, as before sessions existed.
 */
export function mcpServerRoutes(options: McpServerOptions) {
  const { registry, executor, auth, settings, virtualServers } = options;
  const sessions = new McpSessions(registry, settings.sessionIdleMs);
  const listens = new ListenStreams();
  const timeouts = { timeoutMs: settings.toolTimeoutMs, maxTimeoutMs: settings.toolMaxTimeoutMs };
  let held: HeldCalls | undefined;
  const heldCalls = (sdk: McpServerSdk) =>
    (held ??= new HeldCalls({ holdMs: settings.inputRequiredTimeoutMs, gatherMs: INPUT_GATHER_MS, maxHeld: settings.maxSessions }, options.secrets, answerCheck(sdk)));

  async function openSession(deps: GatewayServerDeps, context: CallContext, body: unknown, request: Request): Promise<Response> {
    const state: SessionState = { context, subscriptions: new Set(), callsUnderway: [], found: new Set() };
    const { server, capabilities } = gatewayServer(deps, state);
    const transport = new deps.sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      eventStore: new SessionEventStore(RESUMABLE_EVENTS),
      // The priming event (an id, no data) a stream opens with for clients of 2025-11-25 and later carries it too.
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => sessions.add(id, session),
      onsessionclosed: (id) => sessions.end(id),
    });
    const session: GatewaySession = { server, capabilities, transport, state, filter: context.filter, keyId: callerIdentity(context.caller), lastSeen: Date.now() };
    server.oninitialized = () => {
      const { sampling, elicitation, roots } = server.getClientCapabilities() ?? {};
      if (!sampling && !elicitation && !roots) return;
      const declared = { ...(sampling ? { sampling } : {}), ...(elicitation ? { elicitation } : {}), ...(roots ? { roots } : {}) };
      state.links = new SessionLinks(answersOf(server, state, declared, timeouts.maxTimeoutMs), declared, timeouts, registry.reach, (clientName, uri) => sessions.resourceUpdated(session, clientName, uri));
    };
    await server.connect(transport);
    return withKeepAlive(await transport.handleRequest(request, { parsedBody: body }), settings.agentKeepAliveMs);
  }

  async function answerAlone(deps: GatewayServerDeps, context: CallContext, body: unknown, request: Request): Promise<Response> {
    const { server } = gatewayServer(deps, { context, subscriptions: new Set(), callsUnderway: [] });
    const transport = new deps.sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await server.close();
    }
  }

  async function contextFor(request: Request, { bound, slug }: Door): Promise<CallContext> {
    if (slug !== undefined) {
      const bundle = virtualServers?.bundle(slug);
      if (!bundle) throw notFound(`virtual MCP server '${slug}' does not exist`, "caller_mcp_virtual_server_not_found");
      return virtualServerContext(request, bundle, auth, options.sessionUser);
    }
    const context = await callContextOf(request, auth, "mcp_server");
    if (bound !== undefined) {
      if (!registry.byName(bound)) throw notFound(`MCP client '${bound}' does not exist`, "caller_mcp_client_not_found");
      context.filter.bound = bound;
    }
    return context;
  }

  async function handle(request: Request, listenerHostname: string | undefined, door: Door = {}): Promise<Response> {
    assertOriginAllowed(request, listenerHostname, settings);
    const context = await contextFor(request, door);
    const sdk = await loadMcpServerSdk();
    const sessionId = request.headers.get(SESSION_HEADER);
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (!session || session.filter.bound !== door.bound || session.filter.virtual?.slug !== door.slug || session.keyId !== callerIdentity(context.caller)) return jsonRpcError(404, -32001, "Session not found");
      session.state.context = context;
      return withKeepAlive(await session.transport.handleRequest(request), settings.agentKeepAliveMs);
    }
    if (request.method !== "POST") return withoutSession(request.method).toResponse({ allow: "POST" });
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the body is not JSON");
    }
    const deps = { sdk, registry, executor, pageSize: settings.listPageSize };
    if (speaksStateless(request.headers, body)) return serveStateless({ deps, listens, held: heldCalls(sdk), timeouts, keepAliveMs: settings.agentKeepAliveMs }, context, request, body);
    if (!isInitialize(sdk, body)) return answerAlone(deps, context, body, request);
    if (sessions.size >= settings.maxSessions) return jsonRpcError(503, -32000, "too many MCP sessions on this gateway: try again later, or send requests without a session");
    return openSession(deps, context, body, request);
  }

  const routes = new Elysia({ name: "mcp-server" })
    .post("/mcp", ({ request, server }) => handle(request, server?.hostname), { parse: "none" })
    .get("/mcp", ({ request, server }) => handle(request, server?.hostname))
    .delete("/mcp", ({ request, server }) => handle(request, server?.hostname))
    .post("/mcp/:client", ({ request, server, params }) => handle(request, server?.hostname, { bound: params.client }), { parse: "none" })
    .get("/mcp/:client", ({ request, server, params }) => handle(request, server?.hostname, { bound: params.client }))
    .delete("/mcp/:client", ({ request, server, params }) => handle(request, server?.hostname, { bound: params.client }))
    .post("/mcp/v/:slug", ({ request, server, params }) => handle(request, server?.hostname, { slug: params.slug }), { parse: "none" })
    .get("/mcp/v/:slug", ({ request, server, params }) => handle(request, server?.hostname, { slug: params.slug }))
    .delete("/mcp/v/:slug", ({ request, server, params }) => handle(request, server?.hostname, { slug: params.slug }));
  return {
    routes,
    /** Ends the subscriptions/listen streams with their result: a draining node waits on no stream that never ends. */
    endStreams: () => listens.close(),
    close: () => {
      listens.close();
      held?.close();
      return sessions.close();
    },
  };
}
