import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  CreateMessageResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

export interface McpSessionServer {
  readonly url: string;
  /** The client capabilities each session declared at initialize. */
  readonly sessionCapabilities: ClientCapabilities[];
  /** Tool calls whose caller cancelled them (the server saw its signal abort, or its session end while it asked), by their `label` argument. */
  readonly cancelled: string[];
  /** The `_meta` of every tools/call. */
  readonly metas: Array<Record<string, unknown> | undefined>;
  readonly logLevels: string[];
  /** How many notifications/roots/list_changed arrived. */
  readonly rootsChanges: { count: number };
  /** Adds a tool and tells every session its list changed. */
  addTool(name: string): void;
  /** Adds a prompt and tells every session its list changed. */
  addPrompt(name: string): void;
  /** Tells every session subscribed to `uri` that it changed. */
  updateResource(uri: string): void;
  stop(): Promise<void>;
}

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/**
 * A stateful MCP server (sessions, SSE answers) with what the gateway must relay: a tool that
 * reports progress and logs while it works and stops when cancelled, one that asks the caller's
 * model through sampling, one failing with a protocol error; resources, a template, prompts,
 * logging, and a tool list that changes.
 */
export function startMcpSessionServer(): McpSessionServer {
  const sessions = new Map<string, { server: Server; transport: WebStandardStreamableHTTPServerTransport; subscriptions: Set<string> }>();
  const sessionCapabilities: ClientCapabilities[] = [];
  const cancelled: string[] = [];
  const metas: Array<Record<string, unknown> | undefined> = [];
  const logLevels: string[] = [];
  const rootsChanges = { count: 0 };
  const prompts = [{ name: "greet", description: "Greets someone", arguments: [{ name: "who", required: true }] }];
  const tools: Tool[] = [
    {
      name: "slow",
      title: "Slow work",
      description: "Works in steps, reporting progress and logging each",
      inputSchema: { type: "object", properties: { steps: { type: "number" }, interval_ms: { type: "number" }, label: { type: "string" } } },
      outputSchema: { type: "object", properties: { steps: { type: "number" } } },
      annotations: { readOnlyHint: true, title: "Slow" },
      _meta: { "example.com/owner": "desk" },
    },
    { name: "ask_model", description: "Asks the caller's model", inputSchema: { type: "object", properties: { question: { type: "string" } } } },
    { name: "strict", description: "Refuses its arguments", inputSchema: { type: "object" } },
    { name: "link", description: "Points at its welcome note", inputSchema: { type: "object" } },
    { name: "roots", description: "Names the caller's roots", inputSchema: { type: "object" } },
  ];

  function createServer(): Server {
    const server = new Server({ name: "desk", version: "2.0.0" }, { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} } });
    server.oninitialized = () => sessionCapabilities.push(server.getClientCapabilities() ?? {});
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => void rootsChanges.count++);
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      metas.push(request.params._meta);
      const args = request.params.arguments ?? {};
      switch (request.params.name) {
        case "slow": {
          const steps = Number(args.steps ?? 3);
          const token = request.params._meta?.progressToken;
          for (let step = 1; step <= steps; step++) {
            await new Promise((resolve) => setTimeout(resolve, Number(args.interval_ms ?? 20)));
            if (extra.signal.aborted) {
              cancelled.push(String(args.label));
              throw new McpError(ErrorCode.RequestTimeout, "cancelled");
            }
            await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: `step ${step}` } });
            if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: steps } });
          }
          return { ...text(`done in ${steps} steps`), structuredContent: { steps } };
        }
        case "ask_model": {
          const asking = extra.sendRequest({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: String(args.question) } }], maxTokens: 50 } }, CreateMessageResultSchema);
          const answer = await asking.catch((error) => {
            if (extra.signal.aborted) cancelled.push(String(args.label));
            throw error;
          });
          return text(`the model said: ${answer.content.type === "text" ? answer.content.text : answer.content.type}`);
        }
        case "link":
          return {
            content: [
              { type: "resource_link", uri: "note://welcome", name: "welcome" },
              { type: "resource", resource: { uri: "note://welcome", mimeType: "text/plain", text: "note welcome" } },
            ],
          };
        case "roots": {
          const { roots } = await extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema);
          return text(roots.map((root) => root.uri).join(","));
        }
        case "strict":
          throw new McpError(ErrorCode.InvalidParams, "city is required");
        default:
          if (tools.some((tool) => tool.name === request.params.name)) return text(`${request.params.name} ran`);
          throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
      }
    });
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [{ uri: "note://welcome", name: "welcome", mimeType: "text/plain" }] }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [{ uriTemplate: "note://{name}", name: "note" }] }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => {
      if (!request.params.uri.startsWith("note://")) throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}`);
      return { contents: [{ uri: request.params.uri, mimeType: "text/plain", text: `note ${request.params.uri.slice("note://".length)}` }] };
    });
    server.setRequestHandler(SubscribeRequestSchema, (request, extra) => {
      sessions.get(extra.sessionId!)?.subscriptions.add(request.params.uri);
      return {};
    });
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts }));
    server.setRequestHandler(GetPromptRequestSchema, (request) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello to ${request.params.arguments?.who}` } }] }));
    server.setRequestHandler(SetLevelRequestSchema, (request) => {
      logLevels.push(request.params.level);
      return {};
    });
    return server;
  }

  async function handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return existing.transport.handleRequest(request);
    if (sessionId) return Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });
    const server = createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { server, transport, subscriptions: new Set() }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  const http = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: handle });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    sessionCapabilities,
    cancelled,
    metas,
    logLevels,
    rootsChanges,
    addTool(name) {
      tools.push({ name, description: `the ${name} tool`, inputSchema: { type: "object" } });
      for (const { server } of sessions.values()) void server.sendToolListChanged();
    },
    addPrompt(name) {
      prompts.push({ name, description: `the ${name} prompt`, arguments: [] });
      for (const { server } of sessions.values()) void server.sendPromptListChanged();
    },
    updateResource(uri) {
      for (const { server, subscriptions } of sessions.values()) if (subscriptions.has(uri)) void server.sendResourceUpdated({ uri });
    },
    async stop() {
      for (const { server } of sessions.values()) await server.close();
      await http.stop(true);
    },
  };
}
