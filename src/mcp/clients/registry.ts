import { isDeepStrictEqual } from "node:util";
import { ChangeQueue } from "../../db/change-queue";
import { notFound } from "../../http/errors";
import { type ConnectionState, SupervisedConnection, type SupervisionTimings } from "../connection/supervised";
import type { ListKind } from "../connection/relays";
import { type DiscoveredTool, type McpReach, openUpstream } from "../connection/upstream";
import { connectsPerCaller, type McpClientConfig } from "./config";
import type { McpClientCreate, McpClientUpdate } from "./schemas";
import type { McpClientStore } from "./store";

/** A per-user client (headers or OAuth) holds no connection: each call connects with the caller's own credentials. */
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

/** What the upstreams said outside any answer, by client name, for the gateway's own MCP sessions. */
export type UpstreamEvent = { type: "list_changed"; clientName: string; kind: ListKind } | { type: "resource_updated"; clientName: string; uri: string };

/**
 * The configured MCP clients and their live connections, keyed by client id. Changes are applied
 * one at a time; a replaced or removed client's connection closes once its calls in flight end.
 */
export class McpClientRegistry {
  private readonly entries = new Map<string, RegisteredClient>();
  private readonly retiring = new Set<SupervisedConnection>();
  private readonly changes = new ChangeQueue();
  private readonly listeners = new Set<(event: UpstreamEvent) => void>();

  constructor(
    private readonly store: McpClientStore,
    private readonly timings: SupervisionTimings,
    readonly reach: McpReach,
  ) {}

  /**
   * Brings the clients in line with the stored ones (the first load, or another node's change):
   * new clients connect in the background, removed ones close, changed ones reconnect and take
   * over together once all have tried; the unchanged ones keep their connection.
   */
  load(): Promise<void> {
    return this.changes.run(async () => {
      const stored = await this.store.list();
      const kept = new Set(stored.map((config) => config.id));
      for (const [id, entry] of this.entries) {
        if (kept.has(id)) continue;
        this.entries.delete(id);
        this.retire(entry);
        this.listsChanged(entry.config.name);
      }
      const changed = stored.flatMap((config) => {
        const current = this.entries.get(config.id);
        return current && !isDeepStrictEqual(current.config, config) ? [this.entryFor(config, current.perUserTools)] : [];
      });
      for (const config of stored) if (!this.entries.has(config.id)) this.startInBackground(config);
      for (const entry of await Promise.all(changed.map((entry) => this.started(entry)))) this.takeOver(entry);
    });
  }

  /** Hears list changes and resource updates of every client, and a client's arrival, change or removal as a change of all its lists. */
  onEvent(listener: (event: UpstreamEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: UpstreamEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private listsChanged(clientName: string): void {
    for (const kind of ["tools", "resources", "prompts"] as const) this.emit({ type: "list_changed", clientName, kind });
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
  create(input: McpClientCreate, privateNetworkAllowed: boolean): Promise<RegisteredClient> {
    return this.changes.run(async () => this.takeOver(await this.started(this.entryFor(await this.store.create(input, privateNetworkAllowed), []))));
  }

  /** Applies the changes and connects afresh with the new configuration. */
  update(id: string, changes: McpClientUpdate, privateNetworkAllowed?: boolean): Promise<RegisteredClient> {
    return this.changes.run(async () => {
      const current = this.require(id);
      const config = await this.store.update(current.config, changes, privateNetworkAllowed);
      return this.takeOver(await this.started(this.entryFor(config, current.perUserTools)));
    });
  }

  remove(id: string): Promise<void> {
    return this.changes.run(async () => {
      const entry = this.require(id);
      await this.store.remove(id);
      this.entries.delete(id);
      this.retire(entry);
      this.listsChanged(entry.config.name);
    });
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
    await this.changes.idle();
    const connections = [...this.list().map((entry) => entry.connection), ...this.retiring];
    await Promise.all(connections.map((connection) => connection?.close()));
    this.entries.clear();
  }

  private startInBackground(config: McpClientConfig): void {
    const entry = this.entryFor(config, []);
    this.entries.set(config.id, entry);
    void this.start(entry);
  }

  /** Callers start the new connection first, so calls keep going to the old one until then. */
  private takeOver(entry: RegisteredClient): RegisteredClient {
    const current = this.entries.get(entry.config.id);
    this.entries.set(entry.config.id, entry);
    if (current) this.retire(current);
    if (current && current.config.name !== entry.config.name) this.listsChanged(current.config.name);
    this.listsChanged(entry.config.name);
    return entry;
  }

  private entryFor(config: McpClientConfig, perUserTools: DiscoveredTool[]): RegisteredClient {
    const perUser = connectsPerCaller(config);
    const events = {
      listChanged: (kind: ListKind) => this.entries.get(config.id)?.config === config && this.emit({ type: "list_changed", clientName: config.name, kind }),
      resourceUpdated: (uri: string) => this.entries.get(config.id)?.config === config && this.emit({ type: "resource_updated", clientName: config.name, uri }),
    };
    return { config, connection: perUser ? undefined : new SupervisedConnection(config, this.timings, this.reach, events), perUserTools };
  }

  private async start(entry: RegisteredClient): Promise<void> {
    if (entry.connection) await entry.connection.connect();
    else await this.discoverPerUserTools(entry);
  }

  private async started(entry: RegisteredClient): Promise<RegisteredClient> {
    await this.start(entry);
    return entry;
  }

  private retire({ connection }: RegisteredClient): void {
    if (!connection) return;
    this.retiring.add(connection);
    void connection.retire().finally(() => this.retiring.delete(connection));
  }

  /** Some servers list their tools without the per-user values; most refuse, which is fine. */
  private async discoverPerUserTools(entry: RegisteredClient): Promise<void> {
    try {
      const session = await openUpstream(entry.config, {}, this.timings.requestTimeoutMs, this.reach);
      await session.client.close();
      if (session.tools.length > 0) entry.perUserTools = session.tools;
    } catch {
      // Tools will be known once an identity's values have been verified.
    }
  }
}
