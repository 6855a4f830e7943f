import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ClientCapabilities, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { RegisteredClient } from "../clients/registry";
import { NotificationRelays } from "../connection/relays";
import { describeError, openUpstream } from "../connection/upstream";
import type { UpstreamLink } from "../tools/executor";

interface OpenLink {
  config: RegisteredClient["config"];
  link: Promise<UpstreamLink>;
}

/** The capabilities of the caller the upstream may use through the gateway. */
export const relayedCapabilities = (caller: ClientCapabilities | undefined): ClientCapabilities => ({
  ...(caller?.sampling ? { sampling: caller.sampling } : {}),
  ...(caller?.elicitation ? { elicitation: caller.elicitation } : {}),
  ...(caller?.roots ? { roots: caller.roots } : {}),
});

/**
 * A caller that can answer sampling, elicitation or roots requests gets sessions of its own with
 * the upstreams (opened on first use), declaring just those capabilities: the upstream's requests
 * then have one place to go, this caller, on the stream of its call under way.
 */
export class SessionLinks {
  private readonly links = new Map<string, OpenLink>();
  /** The caller's requests under way (tools/call), latest last: where an upstream request is related. */
  readonly callsUnderway: RequestId[] = [];

  constructor(
    private readonly server: Server,
    private readonly capabilities: ClientCapabilities,
    private readonly timeouts: { timeoutMs: number; maxTimeoutMs: number },
    private readonly resourceUpdated: (clientName: string, uri: string) => void,
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

  async close(): Promise<void> {
    const open = [...this.links.values()];
    this.links.clear();
    await Promise.all(open.map((entry) => this.closeLink(entry)));
  }

  private async closeLink(open: OpenLink): Promise<void> {
    const link = await open.link.catch(() => undefined);
    await link?.client.close().catch((error) => console.error(`MCP client '${open.config.name}': closing a caller's session failed: ${describeError(error)}`));
  }

  private async open(entry: RegisteredClient): Promise<UpstreamLink> {
    const relays = new NotificationRelays();
    const related = () => ({ relatedRequestId: this.callsUnderway.at(-1), timeout: this.timeouts.maxTimeoutMs });
    const { client } = await openUpstream(entry.config, {}, this.timeouts.timeoutMs, {
      capabilities: this.capabilities,
      prepare: (client, sdk) => {
        client.setNotificationHandler(sdk.ResourceUpdatedNotificationSchema, (notification) => this.resourceUpdated(entry.config.name, notification.params.uri));
        client.setNotificationHandler(sdk.LoggingMessageNotificationSchema, (notification) => {
          if (!relays.deliver(notification)) void this.server.notification(notification).catch(() => undefined);
        });
        if (this.capabilities.sampling) client.setRequestHandler(sdk.CreateMessageRequestSchema, (request, extra) => this.server.createMessage(request.params, { ...related(), signal: extra.signal }));
        if (this.capabilities.elicitation) client.setRequestHandler(sdk.ElicitRequestSchema, (request, extra) => this.server.elicitInput(request.params, { ...related(), signal: extra.signal }));
        if (this.capabilities.roots) client.setRequestHandler(sdk.ListRootsRequestSchema, (request, extra) => this.server.listRoots(request.params, { ...related(), signal: extra.signal }));
      },
    });
    return { client, relays };
  }
}
