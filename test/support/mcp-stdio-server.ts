/**
 * A real MCP server built with the SDK, over stdio: run as a child process by the gateway.
 * `process_id` tells which process answered (a reconnect starts a new one); `crash` exits
 * the process mid-call, as a failing upstream would.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { serveTools, STANDARD_TOOLS, text } from "./mcp-tools";

export const STDIO_SERVER_PATH = import.meta.path;

if (import.meta.main) {
  const server = new Server({ name: "test-stdio-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
  serveTools(server, {
    ...STANDARD_TOOLS,
    process_id: { description: "The id of the server process", run: () => text(String(process.pid)) },
    env_value: { description: "The value of an environment variable", properties: { name: { type: "string" } }, run: ({ name }) => text(process.env[String(name)] ?? "") },
    crash: { description: "Exits the server process", run: () => process.exit(3) },
  });
  await server.connect(new StdioServerTransport());
}
