import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities, Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { EnvReader } from "../../config/env-reference";
import { fetchUnder } from "../../outbound/guarded-fetch";
import { type OutboundReach, policyFor } from "../../outbound/reach";
import type { McpClientConfig } from "../clients/config";
import type { GrantProvider } from "../oauth/provider";
import { OpenApiTransport } from "../openapi/transport";
import { loadedMcpClientSdk, loadMcpClientSdk, type McpClientSdk } from "../sdk";
import { STATELESS_VERSION } from "../server/stateless/wire";
import { httpTransport, type TransportNeeds } from "./revision";
import { StatelessTransport } from "./stateless/transport";

/** A tool as the upstream server describes it, every field kept (title, annotations, outputSchema, execution, _meta). */
export type DiscoveredTool = Tool;

/** An initialized MCP session with one upstream server, and the tools it listed. */
export interface UpstreamSession {
  client: Client;
  tools: DiscoveredTool[];
  /** The revision spoken: 2026-07-28, or what the initialize handshake agreed on (undefined where the transport does not say). */
  protocolVersion?: string;
}

const CLIENT_INFO = { name: "ai-gateway", version: "1.0.0" };

/** What the config file lets MCP clients start and read: the only commands a stdio client may run, the variables `env.NAME` may name. */
export interface McpReach {
  stdioAllowedCommands: readonly string[];
  readEnv: EnvReader;
  /** The addresses HTTP and SSE servers may have. */
  outbound: OutboundReach;
  /** auth_type oauth: what the transport authorizes with (tokens, refreshed; the SDK's discovery on a 401). */
  oauth?: (config: McpClientConfig) => GrantProvider | undefined;
}

export const stdioCommandAllowed = (reach: McpReach, command: string) => reach.stdioAllowedCommands.includes(command);

/** A stdio command outside the allow-list: refused at every start, whenever it was stored. */
export class StdioCommandRefused extends Error {
  constructor(command: string) {
    super(`the command '${command}' is not in mcp.stdio_allowed_commands of the configuration file`);
  }
}

const resolveValues = (values: Record<string, string>, readEnv: EnvReader) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, readEnv(value)]));

async function transportFor(sdk: McpClientSdk, config: McpClientConfig, extraHeaders: Record<string, string>, reach: McpReach, needs: TransportNeeds, ownProvider?: GrantProvider): Promise<Transport> {
  const { SSEClientTransport, StdioClientTransport, getDefaultEnvironment } = sdk;
  const headers = { ...resolveValues(config.headers, reach.readEnv), ...extraHeaders };
  const authProvider = ownProvider ?? reach.oauth?.(config);
  const guarded = fetchUnder(policyFor(reach.outbound, config.privateNetworkAllowed));
  const fetch = authProvider ? authProvider.refreshingOnRefusal(guarded) : guarded;
  switch (config.connectionType) {
    case "http":
      return httpTransport(sdk, { url: new URL(config.connectionString!), headers, fetch, authProvider }, config.protocolVersion, needs);
    case "sse":
      return new SSEClientTransport(new URL(config.connectionString!), { requestInit: { headers }, fetch, authProvider });
    case "openapi":
      return new OpenApiTransport({ name: config.name, settings: config.openapi!, documentUrl: config.connectionString, headers, readEnv: reach.readEnv, policy: policyFor(reach.outbound, config.privateNetworkAllowed) });
    case "stdio": {
      const stdio = config.stdio!;
      if (!stdioCommandAllowed(reach, stdio.command)) throw new StdioCommandRefused(stdio.command);
      return new StdioClientTransport({ command: stdio.command, args: stdio.args, env: { ...getDefaultEnvironment(), ...resolveValues(stdio.envs, reach.readEnv) }, stderr: "ignore" });
    }
  }
}

/** Every page of the upstream's tool list. */
export async function listAllTools(client: Client, timeoutMs: number): Promise<DiscoveredTool[]> {
  const tools: DiscoveredTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** Every page of a list, however the upstream pages it. */
export async function allPages<T>(list: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await list(cursor);
    items.push(...next.items);
    cursor = next.nextCursor;
  } while (cursor);
  return items;
}

/** What an upstream offers besides tools, as the dashboard shows it. */
export interface UpstreamCatalogue {
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

export const EMPTY_CATALOGUE: UpstreamCatalogue = { resources: [], resourceTemplates: [], prompts: [] };

/** The upstream's resources and templates (`kind` "resources") or prompts, when it offers them. */
export async function listCatalogue(client: Client, kind: "resources" | "prompts", timeoutMs: number): Promise<Partial<UpstreamCatalogue>> {
  const options = { timeout: timeoutMs };
  if (!client.getServerCapabilities()?.[kind]) return kind === "resources" ? { resources: [], resourceTemplates: [] } : { prompts: [] };
  if (kind === "prompts") return { prompts: await allPages(async (cursor) => ((page) => ({ items: page.prompts, nextCursor: page.nextCursor }))(await client.listPrompts(cursor ? { cursor } : undefined, options))) };
  const [resources, resourceTemplates] = await Promise.all([
    allPages(async (cursor) => ((page) => ({ items: page.resources, nextCursor: page.nextCursor }))(await client.listResources(cursor ? { cursor } : undefined, options))),
    allPages(async (cursor) => ((page) => ({ items: page.resourceTemplates, nextCursor: page.nextCursor }))(await client.listResourceTemplates(cursor ? { cursor } : undefined, options))),
  ]);
  return { resources, resourceTemplates };
}

export interface UpstreamOptions {
  /** What the gateway declares upstream: sampling, elicitation or roots only for a caller that has them. */
  capabilities?: ClientCapabilities;
  /** Sets handlers on the client before it connects (the upstream may use them during initialize). */
  prepare?: (client: Client, sdk: McpClientSdk) => void;
  /** The tools are known already (a caller's own session next to the shared one): do not list them. */
  skipTools?: boolean;
  /** A per-user OAuth client: the caller's own tokens. */
  authProvider?: GrantProvider;
  /** The shared connection: hear the upstream's list changes (2026-07-28: on a subscriptions/listen stream kept open). */
  watchLists?: boolean;
}

/** The revision the `Client` agreed on in the handshake, as it tells an HTTP transport; the 2026-07-28 transport speaks its own whatever the `Client` says. */
function recordRevision(transport: Transport): () => string | undefined {
  if (transport instanceof StatelessTransport) return () => STATELESS_VERSION;
  let agreed: string | undefined;
  const own = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    agreed = version;
    own?.(version);
  };
  return () => agreed;
}

/**
 * Connects (initialize) and lists the tools. `extraHeaders` carries per-user values; static
 * headers and stdio envs may be `env.NAME` references, resolved here and never stored resolved.
 */
export async function openUpstream(config: McpClientConfig, extraHeaders: Record<string, string>, timeoutMs: number, reach: McpReach, options: UpstreamOptions = {}): Promise<UpstreamSession> {
  const sdk = await loadMcpClientSdk();
  const capabilities = options.capabilities ?? {};
  const client = new sdk.Client(CLIENT_INFO, { capabilities });
  options.prepare?.(client, sdk);
  try {
    const needs = { identity: { clientInfo: CLIENT_INFO, capabilities }, timeoutMs, watchLists: options.watchLists === true };
    const transport = await transportFor(sdk, config, extraHeaders, reach, needs, options.authProvider);
    const revision = recordRevision(transport);
    await client.connect(transport, { timeout: timeoutMs });
    return { client, tools: client.getServerCapabilities()?.tools && !options.skipTools ? await listAllTools(client, timeoutMs) : [], protocolVersion: revision() };
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
