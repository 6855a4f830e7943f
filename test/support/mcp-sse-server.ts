import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import type { RecordedToolCall } from "./mcp-http-server";
import { serveTools, STANDARD_TOOLS } from "./mcp-tools";

export interface McpSseServer {
  /** The SSE endpoint (`.../sse`); messages go to the endpoint the stream announces. */
  url: string;
  calls: RecordedToolCall[];
  stop(): Promise<void>;
}

/** A real MCP server built with the SDK, over the (older) HTTP+SSE transport, on node:http as the SDK expects. */
export async function startMcpSseServer(): Promise<McpSseServer> {
  const calls: RecordedToolCall[] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http: HttpServer = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (request.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", response);
      sessions.set(transport.sessionId, transport);
      response.on("close", () => sessions.delete(transport.sessionId));
      const mcp = new Server({ name: "test-sse-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
      serveTools(mcp, STANDARD_TOOLS, (name, args) => calls.push({ name, arguments: args }));
      await mcp.connect(transport);
      return;
    }
    const session = request.method === "POST" && url.pathname === "/messages" ? sessions.get(url.searchParams.get("sessionId") ?? "") : undefined;
    if (session) return session.handlePostMessage(request, response);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    calls,
    stop: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
