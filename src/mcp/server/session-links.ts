import type { ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, ListRootsRequest, ListRootsResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { RegisteredClient } from "../clients/registry";
import { NotificationRelays } from "../connection/relays";
import { describeError, type McpReach, openUpstream } from "../connection/upstream";
import type { UpstreamLink } from "../tools/executor";

interface OpenLink {
  config: RegisteredClient["config"];
  link: Promise<UpstreamLink>;
}

/** Who answers an upstream's requests to the caller (each present one is declared upstream), and hears its log messages outside any call. */
export interface CallerAnswers {
  sampling?: (params: CreateMessageRequest["params"], signal: AbortSignal) => Promise<CreateMessageResult>;
  elicitation?: (params: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;
  roots?: (params: ListRootsRequest["params"], signal: AbortSignal) => Promise<ListRootsResult>;
  log?: (notification: ServerNotification) => void;
}

/**
 * A caller that can answer sampling, elicitation or roots requests (an MCP client that declares
 * them, or agent mode answering sampling with the request's model) gets sessions of its own with
 * the upstreams, opened on first use and declaring just those capabilities: the upstream's
 * requests then have one place to go, this caller.
 */
export class SessionLinks {
  private readonly links = new Map<string, OpenLink>();

  /** `capabilities`: as the caller declared them (sampling, elicitation, roots), each with an answer. */
  constructor(
    private readonly answers: CallerAnswers,
    private readonly capabilities: ClientCapabilities,
    private readonly timeouts: { timeoutMs: number; maxTimeoutMs: number },
    private readonly reach: McpReach,
    private readonly resourceUpdated: (clientName: string, uri: string) => void = () => {},
  ) {}

  /** Undefined for per-user clients, whose calls open a session with the caller's own values anyway. */
  linkFor(entry: RegisteredClient): Promise<UpstreamLink> | undefined {
    if (!entry.connection) return undefined;
    const open = this.links.get(entry.config.id);
    if (open?.config === entry.config) return open.link;
    if (open) void this.closeLink(open);
    const link = this.open(entry);
    this.links.set(entry.config.id, { config: entry.config, link });
    link.catch(() => this.links.get(entry.config.id)?.link === link && this.links.delete(entry.config.id));
    return link;
  }

  /** The caller's roots changed: every upstream session of its own hears it. */
  async rootsChanged(): Promise<void> {
    await Promise.all([...this.links.values()].map(async (open) => (await open.link.catch(() => undefined))?.client.sendRootsListChanged().catch(() => undefined)));
  }

  async close(): Promise<void> {
    const open = [...this.links.values()];
    this.links.clear();
    await Promise.all(open.map((entry) => this.closeLink(entry)));
  }

  /** Ends the upstream's session too (Streamable HTTP: DELETE), which ends a call still under way on it there. */
  private async closeLink(open: OpenLink): Promise<void> {
    const link = await open.link.catch(() => undefined);
    const transport = link?.client.transport as { terminateSession?: () => Promise<void> } | undefined;
    await transport?.terminateSession?.().catch(() => undefined);
    await link?.client.close().catch((error) => console.error(`MCP client '${open.config.name}': closing a caller's session failed: ${describeError(error)}`));
  }

  private async open(entry: RegisteredClient): Promise<UpstreamLink> {
    const relays = new NotificationRelays();
    const { sampling, elicitation, roots, log } = this.answers;
    const { client } = await openUpstream(entry.config, {}, this.timeouts.timeoutMs, this.reach, {
      capabilities: this.capabilities,
      skipTools: true,
      prepare: (client, sdk) => {
        client.setNotificationHandler(sdk.ResourceUpdatedNotificationSchema, (notification) => this.resourceUpdated(entry.config.name, notification.params.uri));
        client.setNotificationHandler(sdk.LoggingMessageNotificationSchema, (notification) => {
          if (!relays.deliver(notification)) log?.(notification);
        });
        if (sampling) client.setRequestHandler(sdk.CreateMessageRequestSchema, (request, extra) => sampling(request.params, extra.signal));
        if (elicitation) client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) => elicitation(request.params, extra.signal));
        if (roots) client.setRequestHandler(sdk.ListRootsRequestSchema, (request, extra) => roots(request.params, extra.signal));
      },
    });
    client.onclose = () => this.links.get(entry.config.id)?.config === entry.config && this.links.delete(entry.config.id);
    return { client, relays };
  }
}
