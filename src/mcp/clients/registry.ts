import { notFound } from "../../http/errors";
import { type ConnectionState, SupervisedConnection, type SupervisionTimings } from "../connection/supervised";
import { type DiscoveredTool, openUpstream } from "../connection/upstream";
import type { McpClientConfig } from "./config";
import type { McpClientCreate, McpClientUpdate } from "./schemas";
import type { McpClientStore } from "./store";

/** A per_user_headers client holds no connection: each call connects with the caller's own values. */
export type ClientState = ConnectionState | "on_demand";

export interface RegisteredClient {
  config: McpClientConfig;
  /** Absent for per_user_headers clients. */
  connection?: SupervisedConnection;
  /** per_user_headers clients: the tools the latest successful session listed. */
  perUserTools: DiscoveredTool[];
}

export const toolsOf = (entry: RegisteredClient): DiscoveredTool[] => entry.connection?.tools ?? entry.perUserTools;
export const stateOf = (entry: RegisteredClient): ClientState => entry.connection?.state ?? "on_demand";

/** The configured MCP clients and their live connections, keyed by client id. */
export class McpClientRegistry {
  private readonly entries = new Map<string, RegisteredClient>();

  constructor(
    private readonly store: McpClientStore,
    private readonly timings: SupervisionTimings,
  ) {}

  /** Registers every stored client; connections come up in the background. */
  async load(): Promise<void> {
    for (const config of await this.store.list()) void this.register(config, []);
  }

  get size(): number {
    return this.entries.size;
  }

  list(): RegisteredClient[] {
    return [...this.entries.values()];
  }

  get(id: string): RegisteredClient | undefined {
    return this.entries.get(id);
  }

  require(id: string): RegisteredClient {
    const entry = this.entries.get(id);
    if (!entry) throw notFound(`MCP client '${id}' does not exist`, "caller_mcp_client_not_found");
    return entry;
  }

  byName(name: string): RegisteredClient | undefined {
    return this.list().find((entry) => entry.config.name === name);
  }

  /** Stores the client and waits for its first connection attempt, so the answer shows how it went. */
  async create(input: McpClientCreate): Promise<RegisteredClient> {
    return this.register(await this.store.create(input), []);
  }

  /** Applies the changes and connects afresh with the new configuration. */
  async update(id: string, changes: McpClientUpdate): Promise<RegisteredClient> {
    const current = this.require(id);
    const config = await this.store.update(current.config, changes);
    await current.connection?.close();
    return this.register(config, current.perUserTools);
  }

  async remove(id: string): Promise<void> {
    const entry = this.require(id);
    await this.store.remove(id);
    this.entries.delete(id);
    await entry.connection?.close();
  }

  async reconnect(id: string): Promise<RegisteredClient> {
    const entry = this.require(id);
    if (entry.connection) await entry.connection.reconnect();
    else await this.discoverPerUserTools(entry);
    return entry;
  }

  /** A per-user session listed the tools: later callers (and the catalogue) see them. */
  noteDiscovered(id: string, tools: DiscoveredTool[]): void {
    const entry = this.entries.get(id);
    if (entry && !entry.connection) entry.perUserTools = tools;
  }

  async close(): Promise<void> {
    await Promise.all(this.list().map((entry) => entry.connection?.close()));
    this.entries.clear();
  }

  private async register(config: McpClientConfig, perUserTools: DiscoveredTool[]): Promise<RegisteredClient> {
    const perUser = config.authType === "per_user_headers";
    const entry: RegisteredClient = { config, connection: perUser ? undefined : new SupervisedConnection(config, this.timings), perUserTools };
    this.entries.set(config.id, entry);
    if (entry.connection) await entry.connection.connect();
    else await this.discoverPerUserTools(entry);
    return entry;
  }

  /** Some servers list their tools without the per-user values; most refuse, which is fine. */
  private async discoverPerUserTools(entry: RegisteredClient): Promise<void> {
    try {
      const session = await openUpstream(entry.config, {}, this.timings.requestTimeoutMs);
      await session.client.close();
      if (session.tools.length > 0) entry.perUserTools = session.tools;
    } catch {
      // Tools will be known once an identity's values have been verified.
    }
  }
}
