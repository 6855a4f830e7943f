import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** A tool of a test MCP server: its JSON schema and what it answers, given the arguments and the request's headers. */
export interface TestTool {
  description: string;
  properties?: Record<string, { type: string }>;
  run(args: Record<string, unknown>, headers: Record<string, string | string[] | undefined>): CallToolResult | Promise<CallToolResult>;
}

export const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** Deterministic tools every test server offers; answers depend only on the arguments. */
export const STANDARD_TOOLS: Record<string, TestTool> = {
  get_weather: { description: "Current weather for a city", properties: { city: { type: "string" } }, run: ({ city }) => text(`Sunny and 21C in ${String(city)}`) },
  add: { description: "Adds two numbers", properties: { a: { type: "number" }, b: { type: "number" } }, run: ({ a, b }) => text(String(Number(a) + Number(b))) },
  fail: { description: "Always reports a failure", run: () => ({ isError: true, content: [{ type: "text", text: "the tool failed on purpose" }] }) },
};

/** Registers `tools` on a low-level SDK server; every call is reported to `onCall`. */
export function serveTools(server: Server, tools: Record<string, TestTool>, onCall?: (name: string, args: Record<string, unknown>) => void): void {
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(tools).map(([name, tool]) => ({ name, description: tool.description, inputSchema: { type: "object" as const, properties: tool.properties ?? {} } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    onCall?.(request.params.name, args);
    const tool = tools[request.params.name];
    if (!tool) return { isError: true, content: [{ type: "text", text: `unknown tool ${request.params.name}` }] };
    return tool.run(args, extra.requestInfo?.headers ?? {});
  });
}
