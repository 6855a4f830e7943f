import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { EnvReader } from "../../config/env-reference";
import type { OutboundPolicy } from "../../outbound/host-check";
import { loadMcpServerSdk, type McpServerSdk } from "../sdk";
import { isObject, type Json } from "./document";
import { type ApiTarget, callOperation } from "./request";
import { type LoadedApi, loadApi, type OpenApiSettings, targetOf } from "./source";

/** What an OpenAPI client needs to connect: its settings, the document's URL, its headers (`env.NAME` resolved), and the policy its calls go under. */
export interface OpenApiConnection {
  name: string;
  settings: OpenApiSettings;
  documentUrl?: string;
  headers: Record<string, string>;
  readEnv: EnvReader;
  policy: OutboundPolicy;
}

const readOnly = new Set(["get", "head", "options"]);

/** The API's title, version and description (its `info`) as the server's, for /mcp/{client}'s callers. */
function serverInfo(document: Json, clientName: string) {
  const info = isObject(document.info) ? document.info : {};
  const text = (value: unknown, fallback: string) => (typeof value === "string" && value.trim() !== "" ? value : fallback);
  return { name: text(info.title, clientName), version: text(info.version, "0"), instructions: typeof info.description === "string" ? info.description : undefined };
}

/** An MCP server whose tools are the API's operations: each call is one HTTP request. */
function apiServer(sdk: McpServerSdk, api: LoadedApi, clientName: string, target: ApiTarget): Server {
  const { operations } = api;
  const { instructions, ...implementation } = serverInfo(api.document, clientName);
  const server = new sdk.Server(implementation, { capabilities: { tools: {} }, instructions });
  const byName = new Map(operations.map((operation) => [operation.toolName, operation]));
  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
    tools: operations.map((operation) => ({
      name: operation.toolName,
      description: operation.description,
      inputSchema: operation.inputSchema as { type: "object" },
      annotations: { readOnlyHint: readOnly.has(operation.method), openWorldHint: true },
    })),
  }));
  server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra) => {
    const operation = byName.get(request.params.name);
    if (!operation) throw new sdk.McpError(sdk.ErrorCode.InvalidParams, `no operation is the tool '${request.params.name}'`);
    return callOperation(operation, (request.params.arguments ?? {}) as Json, target, extra.signal);
  });
  return server;
}

/**
 * The MCP session of an OpenAPI client: on start it reads the document (fetched under the outbound
 * policy when it is a URL) and links an in-process MCP server to the client, so the API's tools
 * pass through the same connection, catalogue, executor and logs as any MCP server's.
 */
export class OpenApiTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  private link?: InMemoryTransport;

  constructor(private readonly connection: OpenApiConnection) {}

  async start(): Promise<void> {
    const { settings, documentUrl, policy, headers, readEnv, name } = this.connection;
    const sdk = await loadMcpServerSdk();
    const api = await loadApi(settings, documentUrl, policy);
    const [clientSide, serverSide] = sdk.InMemoryTransport.createLinkedPair();
    clientSide.onmessage = (message, extra) => this.onmessage?.(message, extra);
    clientSide.onclose = () => this.onclose?.();
    clientSide.onerror = (error) => this.onerror?.(error);
    await apiServer(sdk, api, name, targetOf(api, settings, headers, readEnv, policy)).connect(serverSide);
    await clientSide.start();
    this.link = clientSide;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!this.link) throw new Error("the OpenAPI session is not started");
    await this.link.send(message, options);
  }

  async close(): Promise<void> {
    await this.link?.close();
  }
}
