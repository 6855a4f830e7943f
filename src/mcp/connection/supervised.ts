import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { retryDelayMs } from "../../inference/backoff";
import type { McpClientConfig } from "../clients/config";
import { loadedMcpClientSdk } from "../sdk";
import { type ListKind, NotificationRelays, type UpstreamEvents, watchUpstream } from "./relays";
import { type DiscoveredTool, describeError, EMPTY_CATALOGUE, listAllTools, listCatalogue, type McpReach, openUpstream, type UpstreamCatalogue } from "./upstream";

export type ConnectionState = "connecting" | "connected" | "disconnected" | "error" | "closed";

export interface SupervisionTimings {
  requestTimeoutMs: number;
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  /** 0 disables health pings. */
  healthCheckMs: number;
}

/** A failure the server answered (an MCP error, a slow reply) leaves the session up; anything else means it dropped. */
function isProtocolAnswer(error: unknown): boolean {
  const sdk = loadedMcpClientSdk();
  return sdk !== undefined && error instanceof sdk.McpError && error.code !== sdk.ErrorCode.ConnectionClosed;
}

/**
 * One long-lived session with an upstream MCP server. When it drops (the stdio process exits,
 * a ping or a call fails at the transport), it reconnects on its own with exponential backoff.
 */
export class SupervisedConnection {
  state: ConnectionState = "connecting";
  tools: DiscoveredTool[] = [];
  /** Resources, templates and prompts, kept like the tools: listed at connect and on list_changed. */
  catalogue: UpstreamCatalogue = EMPTY_CATALOGUE;
  lastError?: string;
  /** The MCP revision the live session speaks (undefined while there is none, or where the transport does not say). */
  protocolVersion?: string;
  private client?: Client;
  private attempt = 0;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private healthTimer?: ReturnType<typeof setInterval>;
  private connecting?: Promise<void>;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The calls under way on this session that relay its log messages to their callers. */
  readonly relays = new NotificationRelays();

  constructor(
    private readonly config: McpClientConfig,
    private readonly timings: SupervisionTimings,
    private readonly reach: McpReach,
    private readonly events: UpstreamEvents = { listChanged() {}, resourceUpdated() {} },
  ) {}

  /** Connects now (joining an attempt already under way); failures schedule the next attempt. */
  connect(): Promise<void> {
    this.connecting ??= this.attemptConnection().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** The operator asked for it: forget the backoff and start over at once. */
  async reconnect(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    await this.connecting;
    await this.dropSession();
    await this.connect();
  }

  /** The live session, or undefined while there is none. */
  session(): Client | undefined {
    return this.state === "connected" ? this.client : undefined;
  }

  /** Reports a failed request: one the transport failed (not the server) means the session is gone. */
  noteFailure(client: Client, error: unknown): void {
    if (client === this.client && !isProtocolAnswer(error)) this.dropped(describeError(error));
  }

  /** Counts a request made on this connection's session, so `retire()` lets it finish. */
  track<T>(request: Promise<T>): Promise<T> {
    const settled = request.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return request;
  }

  /** Closes once the requests already under way have settled (each is bounded by its own timeout); no new attempt starts meanwhile. */
  async retire(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await Promise.all(this.inFlight);
    await this.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => undefined);
    this.state = "closed";
    await this.dropSession();
  }

  private async attemptConnection(): Promise<void> {
    if (this.closed) return;
    this.state = "connecting";
    try {
      const { client, tools, protocolVersion } = await openUpstream(this.config, {}, this.timings.requestTimeoutMs, this.reach, {
        watchLists: true,
        prepare: (client, sdk) => watchUpstream(client, sdk, { listChanged: (kind) => void this.listChanged(client, kind), resourceUpdated: (uri) => this.events.resourceUpdated(uri) }, this.relays),
      });
      // A server whose resources or prompts fail to list still serves its tools.
      const listed = (kind: "resources" | "prompts") => listCatalogue(client, kind, this.timings.requestTimeoutMs).catch(() => ({}));
      const catalogue: UpstreamCatalogue = { ...EMPTY_CATALOGUE, ...(await listed("resources")), ...(await listed("prompts")) };
      if (this.closed) return void (await client.close());
      this.catalogue = catalogue;
      client.onclose = () => client === this.client && this.dropped("the connection closed");
      this.client = client;
      this.tools = tools;
      this.protocolVersion = protocolVersion;
      this.state = "connected";
      this.attempt = 0;
      this.lastError = undefined;
      this.watchHealth(client);
      for (const kind of ["tools", "resources", "prompts"] as const) this.events.listChanged(kind);
    } catch (error) {
      this.state = "error";
      this.lastError = describeError(error);
      this.scheduleRetry();
    }
  }

  /** The upstream changed a list: tools are listed again before the callers hear of it. */
  private async listChanged(client: Client, kind: ListKind): Promise<void> {
    try {
      if (kind === "tools") {
        const tools = await listAllTools(client, this.timings.requestTimeoutMs);
        if (client !== this.client) return;
        this.tools = tools;
      } else {
        const listed = await listCatalogue(client, kind, this.timings.requestTimeoutMs);
        if (client !== this.client) return;
        this.catalogue = { ...this.catalogue, ...listed };
      }
    } catch (error) {
      return this.noteFailure(client, error);
    }
    this.events.listChanged(kind);
  }

  private dropped(reason: string): void {
    if (this.closed || this.state !== "connected") return;
    this.state = "disconnected";
    this.lastError = reason;
    void this.dropSession();
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    const delay = retryDelayMs(this.attempt++, this.timings.reconnectInitialMs, this.timings.reconnectMaxMs);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref?.();
  }

  private watchHealth(client: Client): void {
    if (this.timings.healthCheckMs <= 0) return;
    this.healthTimer = setInterval(() => {
      client.ping({ timeout: this.timings.requestTimeoutMs }).catch((error) => client === this.client && this.dropped(`health check failed: ${describeError(error)}`));
    }, this.timings.healthCheckMs);
    this.healthTimer.unref?.();
  }

  private async dropSession(): Promise<void> {
    clearInterval(this.healthTimer);
    const client = this.client;
    this.client = undefined;
    this.protocolVersion = undefined;
    if (!client) return;
    client.onclose = undefined;
    await client.close().catch(() => undefined);
  }
}
