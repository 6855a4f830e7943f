import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { EnvReader } from "../../config/env-reference";
import { fetchUnder } from "../../outbound/guarded-fetch";
import { type OutboundReach, policyFor } from "../../outbound/reach";
import type { McpClientConfig } from "../clients/config";
import { loadedMcpClientSdk, loadMcpClientSdk, type McpClientSdk } from "../sdk";

/** A tool as the upstream server describes it. */
export interface DiscoveredTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** An initialized MCP session with one upstream server, and the tools it listed. */
export interface UpstreamSession {
  client: Client;
  tools: DiscoveredTool[];
}

const CLIENT_INFO = { name: "ai-gateway", version: "1.0.0" };

/** What the config file lets MCP clients start and read: the only commands a stdio client may run, the variables `env.NAME` may name. */
export interface McpReach {
  stdioAllowedCommands: readonly string[];
  readEnv: EnvReader;
  /** The addresses HTTP and SSE servers may have. */
  outbound: OutboundReach;
}

export const stdioCommandAllowed = (reach: McpReach, command: string) => reach.stdioAllowedCommands.includes(command);

/** A stdio command outside the allow-list: refused at every start, whenever it was stored. */
export class StdioCommandRefused extends Error {
  constructor(command: string) {
    super(`the command '${command}' is not in mcp.stdio_allowed_commands of the configuration file`);
  }
}

const resolveValues = (values: Record<string, string>, readEnv: EnvReader) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, readEnv(value)]));

function transportFor(sdk: McpClientSdk, config: McpClientConfig, extraHeaders: Record<string, string>, reach: McpReach): Transport {
  const { SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport, getDefaultEnvironment } = sdk;
  const headers = { ...resolveValues(config.headers, reach.readEnv), ...extraHeaders };
  const fetch = fetchUnder(policyFor(reach.outbound, config.privateNetworkAllowed));
  switch (config.connectionType) {
    case "http":
      return new StreamableHTTPClientTransport(new URL(config.connectionString!), { requestInit: { headers }, fetch });
    case "sse":
      return new SSEClientTransport(new URL(config.connectionString!), { requestInit: { headers }, fetch });
    case "stdio": {
      const stdio = config.stdio!;
      if (!stdioCommandAllowed(reach, stdio.command)) throw new StdioCommandRefused(stdio.command);
      return new StdioClientTransport({ command: stdio.command, args: stdio.args, env: { ...getDefaultEnvironment(), ...resolveValues(stdio.envs, reach.readEnv) }, stderr: "ignore" });
    }
  }
}

async function listAllTools(client: Client, timeoutMs: number): Promise<DiscoveredTool[]> {
  const tools: DiscoveredTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...page.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/**
 * Connects (initialize) and lists the tools. `extraHeaders` carries per-user values; static
 * headers and stdio envs may be `env.NAME` references, resolved here and never stored resolved.
 */
export async function openUpstream(config: McpClientConfig, extraHeaders: Record<string, string>, timeoutMs: number, reach: McpReach): Promise<UpstreamSession> {
  const sdk = await loadMcpClientSdk();
  const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transportFor(sdk, config, extraHeaders, reach), { timeout: timeoutMs });
    return { client, tools: await listAllTools(client, timeoutMs) };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/** The HTTP status an upstream answered with, when the SDK's HTTP or SSE transport failed on one. */
function upstreamStatus(error: unknown): number | undefined {
  const sdk = loadedMcpClientSdk();
  return sdk && (error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError) ? error.code : undefined;
}

/** Whether the upstream turned the credentials down (HTTP 401 or 403), as opposed to being unreachable. */
export function isAuthRefusal(error: unknown): boolean {
  const sdk = loadedMcpClientSdk();
  if (sdk && error instanceof sdk.UnauthorizedError) return true;
  const code = upstreamStatus(error);
  return code === 401 || code === 403;
}

/** A failure in words; an HTTP status the upstream answered with leads, as it says the most. */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const status = upstreamStatus(error);
  return status !== undefined && status > 0 ? `HTTP ${status}: ${message}` : message;
}
