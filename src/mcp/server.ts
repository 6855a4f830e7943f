import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Elysia } from "elysia";
import { GatewayError } from "../http/errors";
import { type CallerAuth, callContextOf } from "./call-context";
import type { McpClientRegistry } from "./clients/registry";
import { loadMcpServerSdk, type McpServerSdk } from "./sdk";
import { assertOriginAllowed, type OriginPolicy } from "./server/origin-guard";
import { offeredTools } from "./tools/catalogue";
import type { CallContext, ToolExecutor } from "./tools/executor";

const SERVER_INFO = { name: "ai-gateway", version: "1.0.0" };

/** A refused or failed call, as a tool result the model can read; unknown and forbidden tools are protocol errors. */
function failedCall(sdk: McpServerSdk, error: unknown): CallToolResult {
  if (!(error instanceof GatewayError)) throw error;
  if (error.status === 404 || error.status === 403) throw new sdk.McpError(sdk.ErrorCode.InvalidParams, error.message);
  const authRequired = error.extra.mcp_auth_required;
  return { isError: true, content: [{ type: "text", text: error.message }], ...(authRequired ? { _meta: { mcp_auth_required: authRequired } } : {}) };
}

/** The gateway as an MCP server for one request: the tools this caller may use, run through the executor. */
function gatewayServer(sdk: McpServerSdk, registry: McpClientRegistry, executor: ToolExecutor, context: CallContext): Server {
  const server = new sdk.Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
    tools: offeredTools(registry, context.filter).map((tool) => ({
      name: tool.exposedName,
      description: tool.definition?.description ?? "",
      inputSchema: { type: "object" as const, ...tool.definition?.inputSchema },
    })),
  }));
  server.setRequestHandler(sdk.CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const call = { id: crypto.randomUUID(), function: { name: request.params.name, arguments: JSON.stringify(request.params.arguments ?? {}) } };
    try {
      return (await executor.execute(call, context)) as CallToolResult;
    } catch (error) {
      return failedCall(sdk, error);
    }
  });
  return server;
}

const notAllowed = () => new Response(null, { status: 405, headers: { allow: "POST" } });

/**
 * POST /mcp: the gateway as an MCP server over Streamable HTTP, stateless (a server per request),
 * answering in JSON. Authenticated by virtual key like every inference route (spec 5).
 */
export const mcpServerRoutes = (registry: McpClientRegistry, executor: ToolExecutor, auth: CallerAuth, originPolicy: OriginPolicy) =>
  new Elysia({ name: "mcp-server" })
    .post(
      "/mcp",
      async ({ request, server: listener }) => {
        assertOriginAllowed(request, listener?.hostname, originPolicy);
        const context = await callContextOf(request, auth, "mcp_server");
        const sdk = await loadMcpServerSdk();
        const server = gatewayServer(sdk, registry, executor, context);
        const transport = new sdk.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        try {
          return await transport.handleRequest(request);
        } finally {
          await server.close();
        }
      },
      { parse: "none" },
    )
    .get("/mcp", notAllowed)
    .delete("/mcp", notAllowed);
