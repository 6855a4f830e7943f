import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { answerStateless } from "./mcp-http-server";

export const CHART_UI = "ui://charts/chart.html";
export const CHART_HTML = "<!doctype html><html><body><div id=chart></div><script>/* app */</script></body></html>";
/** What MCP Apps puts on a tool: the UI resource its host renders, and who may call it. */
export const CHART_TOOL_META = { ui: { resourceUri: CHART_UI, visibility: ["model", "app"] }, "openai/outputTemplate": CHART_UI };
/** What MCP Apps puts on a UI resource's content: its sandbox and border. */
export const CHART_RESOURCE_META = { ui: { csp: { connectDomains: ["https://api.example.com"] }, prefersBorder: true } };

export interface McpAppsServer {
  readonly url: string;
  /** The names of the tools called, in order. */
  readonly calls: string[];
  stop(): Promise<void>;
}

/**
 * An MCP server with an MCP App (a tool whose `_meta.ui.resourceUri` names a `ui://` HTML
 * resource), a plain tool, a document resource and template, and a prompt. Stateless, JSON answers.
 */
export function startMcpAppsServer(): McpAppsServer {
  const calls: string[] = [];
  function build(): McpServer {
    const mcp = new McpServer({ name: "charts", version: "2.0.0" });
    mcp.registerTool("show_chart", { description: "Draws a chart of a series", inputSchema: { series: z.string() }, _meta: CHART_TOOL_META }, ({ series }) => {
      calls.push("show_chart");
      return { content: [{ type: "text", text: `chart of ${series}` }, { type: "resource_link", uri: CHART_UI, name: "chart", mimeType: "text/html;profile=mcp-app" }], structuredContent: { series } };
    });
    mcp.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() } }, ({ text }) => {
      calls.push("echo");
      return { content: [{ type: "text", text: `charts echo: ${text}` }] };
    });
    mcp.registerResource("chart", CHART_UI, { mimeType: "text/html;profile=mcp-app" }, () => ({ contents: [{ uri: CHART_UI, mimeType: "text/html;profile=mcp-app", text: CHART_HTML, _meta: CHART_RESOURCE_META }] }));
    mcp.registerResource("readme", "docs://readme", { mimeType: "text/plain" }, () => ({ contents: [{ uri: "docs://readme", text: "read me first" }] }));
    mcp.registerResource("page", new ResourceTemplate("docs://pages/{page}", { list: undefined }), { mimeType: "text/plain" }, (uri, { page }) => ({ contents: [{ uri: uri.href, text: `page ${String(page)}` }] }));
    mcp.registerPrompt("summarize", { description: "Summarize a text", argsSchema: { text: z.string() } }, ({ text }) => ({ messages: [{ role: "user", content: { type: "text", text: `Summarize: ${text}` } }] }));
    return mcp;
  }
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
      return answerStateless(build(), request);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    calls,
    stop: async () => void (await server.stop(true)),
  };
}
