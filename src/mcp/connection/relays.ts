import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { McpClientSdk } from "../sdk";

/** The lists an upstream may say have changed. */
export type ListKind = "tools" | "resources" | "prompts";

/** What an upstream tells the gateway outside of any answer. */
export interface UpstreamEvents {
  listChanged(kind: ListKind): void;
  resourceUpdated(uri: string): void;
}

/**
 * The calls in flight on one upstream session that want its notifications (log messages):
 * MCP does not say which request a notification belongs to, so each call under way hears them.
 */
export class NotificationRelays {
  private readonly sinks = new Set<(notification: ServerNotification) => void>();

  /** Until the returned function is called. */
  add(sink: (notification: ServerNotification) => void): () => void {
    this.sinks.add(sink);
    return () => this.sinks.delete(sink);
  }

  /** False when no call is listening. */
  deliver(notification: ServerNotification): boolean {
    for (const sink of this.sinks) sink(notification);
    return this.sinks.size > 0;
  }
}

/** Routes an upstream session's notifications: list changes and resource updates to `events`, log messages to the calls under way (else `unrouted`). */
export function watchUpstream(client: Client, sdk: McpClientSdk, events: UpstreamEvents, relays: NotificationRelays, unrouted?: (notification: ServerNotification) => void): void {
  client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => events.listChanged("tools"));
  client.setNotificationHandler(sdk.ResourceListChangedNotificationSchema, () => events.listChanged("resources"));
  client.setNotificationHandler(sdk.PromptListChangedNotificationSchema, () => events.listChanged("prompts"));
  client.setNotificationHandler(sdk.ResourceUpdatedNotificationSchema, (notification) => events.resourceUpdated(notification.params.uri));
  client.setNotificationHandler(sdk.LoggingMessageNotificationSchema, (notification) => {
    if (!relays.deliver(notification)) unrouted?.(notification);
  });
}
