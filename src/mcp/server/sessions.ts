import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpClientRegistry, UpstreamEvent } from "../clients/registry";
import type { ToolFilter } from "../tools/filter";
import { exposedUri } from "./names";
import type { SessionState } from "./gateway-server";

/** One caller's MCP session on /mcp, /mcp/{client} or /mcp/v/{slug}. */
export interface GatewaySession {
  server: Server;
  capabilities: ServerCapabilities;
  transport: WebStandardStreamableHTTPServerTransport;
  state: SessionState;
  filter: ToolFilter;
  /** The virtual key (or dashboard user) that opened it: every later request must present the same. */
  keyId?: string;
  lastSeen: number;
}

const sees = (filter: ToolFilter, clientName: string) => (filter.bound === undefined || filter.bound === clientName) && (!filter.virtual || filter.virtual.clients.has(clientName));

/**
 * The sessions open on this node (a session lives where it began: several nodes need sticky
 * routing by Mcp-Session-Id). Upstream list changes and resource updates go out to each session
 * that sees the client; sessions idle past `idleMs` end.
 */
export class McpSessions {
  private readonly sessions = new Map<string, GatewaySession>();
  private readonly stopListening: () => void;
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(
    registry: McpClientRegistry,
    private readonly idleMs: number,
  ) {
    this.stopListening = registry.onEvent((event) => this.relay(event));
    this.sweeper = setInterval(() => this.sweep(), Math.min(idleMs, 60_000));
    this.sweeper.unref?.();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): GatewaySession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  add(id: string, session: GatewaySession): void {
    this.sessions.set(id, session);
  }

  /** The session ended (DELETE, idle, or its transport closed): its own upstream sessions close too. */
  async end(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.state.links?.close();
    await session.server.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.stopListening();
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.end(id)));
  }

  /** A resource one session subscribed to changed upstream. */
  resourceUpdated(session: GatewaySession, clientName: string, uri: string): void {
    const exposed = exposedUri(session.filter, clientName, uri);
    if (session.state.subscriptions.has(exposed)) void session.server.sendResourceUpdated({ uri: exposed }).catch(() => undefined);
  }

  private relay(event: UpstreamEvent): void {
    for (const session of this.sessions.values()) {
      if (!sees(session.filter, event.clientName)) continue;
      if (event.type === "resource_updated") {
        this.resourceUpdated(session, event.clientName, event.uri);
        continue;
      }
      const { server } = session;
      if (!session.capabilities[event.kind]) continue;
      const sent = event.kind === "tools" ? server.sendToolListChanged() : event.kind === "resources" ? server.sendResourceListChanged() : server.sendPromptListChanged();
      void sent.catch(() => undefined);
    }
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [id, session] of this.sessions) if (session.lastSeen < cutoff) void this.end(id);
  }
}
