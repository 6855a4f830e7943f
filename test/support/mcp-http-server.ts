import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { serveTools, STANDARD_TOOLS, type TestTool } from "./mcp-tools";

export interface McpHttpServerOptions {
  name?: string;
  tools?: Record<string, TestTool>;
  /** Every request must carry one of these values in this header, or it gets 401 (as a real server would). */
  requireHeader?: { name: string; accepted: () => readonly string[] };
}

export interface RecordedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface McpHttpServer {
  /** The MCP endpoint (`.../mcp`). */
  readonly url: string;
  readonly calls: RecordedToolCall[];
  /** The headers of every HTTP request received. */
  readonly requestHeaders: Headers[];
  /** Stops answering, like a crashed upstream; `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): void;
}

/** Answers one request with a server of its own, in JSON, and closes that server: a stateless MCP server. */
export async function answerStateless(mcp: Pick<Server, "connect" | "close">, request: Request): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await mcp.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await mcp.close();
  }
}

/** A real MCP server built with the SDK, over Streamable HTTP (stateless: a server per request, JSON answers). */
export function startMcpHttpServer(options: McpHttpServerOptions = {}): McpHttpServer {
  const tools = options.tools ?? STANDARD_TOOLS;
  const calls: RecordedToolCall[] = [];
  const requestHeaders: Headers[] = [];
  let port = 0;
  let server: ReturnType<typeof Bun.serve> | undefined;

  async function handle(request: Request): Promise<Response> {
    requestHeaders.push(request.headers);
    const required = options.requireHeader;
    if (required && !required.accepted().includes(request.headers.get(required.name) ?? "")) {
      return Response.json({ error: "unauthorized" }, { status: 401, headers: { "www-authenticate": "Bearer" } });
    }
    if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
    const mcp = new Server({ name: options.name ?? "test-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
    serveTools(mcp, tools, (name, args) => calls.push({ name, arguments: args }));
    return answerStateless(mcp, request);
  }

  const handle_: McpHttpServer = {
    get url() {
      return `http://127.0.0.1:${port}/mcp`;
    },
    calls,
    requestHeaders,
    async stop() {
      await server?.stop(true);
      server = undefined;
    },
    start() {
      server = Bun.serve({ port, hostname: "127.0.0.1", fetch: handle });
      port = server.port!;
    },
  };
  handle_.start();
  return handle_;
}
