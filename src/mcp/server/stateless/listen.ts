import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { McpClientRegistry, UpstreamEvent } from "../../clients/registry";
import { clientVisible, type ToolFilter } from "../../tools/filter";
import { exposedUri, ownerOfName } from "../names";
import { META, type StatelessRequest } from "./wire";
import { sseEvent, sseResponse } from "./sse";

/** What a subscriptions/listen request asks to hear about (spec: Notification Filter). */
interface NotificationFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

const LIST_FLAGS = { tools: "toolsListChanged", prompts: "promptsListChanged", resources: "resourcesListChanged" } as const;

/** The part of the filter this server honors: what its capabilities offer. */
function honored(asked: NotificationFilter, capabilities: ServerCapabilities): NotificationFilter {
  const kept: NotificationFilter = {};
  for (const [kind, flag] of Object.entries(LIST_FLAGS) as [keyof typeof LIST_FLAGS, (typeof LIST_FLAGS)[keyof typeof LIST_FLAGS]][]) {
    if (asked[flag] === true && capabilities[kind]) kept[flag] = true;
  }
  const uris = Array.isArray(asked.resourceSubscriptions) ? asked.resourceSubscriptions.filter((uri): uri is string => typeof uri === "string") : [];
  if (uris.length > 0 && capabilities.resources?.subscribe) kept.resourceSubscriptions = uris;
  return kept;
}

/** Asks each upstream that owns a subscribed URI to send its updates (on the shared session, which the registry relays). */
async function subscribeUpstream(registry: McpClientRegistry, filter: ToolFilter, uris: string[]): Promise<void> {
  await Promise.all(
    uris.map(async (uri) => {
      const named = ownerOfName(filter, uri, "+");
      const entry = named && registry.byName(named.clientName);
      if (!named || !entry || !clientVisible(filter, entry.config)) return;
      await entry.connection?.session()?.subscribeResource({ uri: named.name }).catch(() => undefined);
    }),
  );
}

/** The notification an upstream event is on this stream, if it is one the caller asked for and may see. */
function notificationFor(event: UpstreamEvent, filter: ToolFilter, wanted: NotificationFilter): { method: string; params: Record<string, unknown> } | undefined {
  if (filter.bound !== undefined && filter.bound !== event.clientName) return undefined;
  if (event.type === "resource_updated") {
    const uri = exposedUri(filter, event.clientName, event.uri);
    return wanted.resourceSubscriptions?.includes(uri) ? { method: "notifications/resources/updated", params: { uri } } : undefined;
  }
  return wanted[LIST_FLAGS[event.kind]] ? { method: `notifications/${event.kind}/list_changed`, params: {} } : undefined;
}

/** The open listen streams, ended with their completion result when the gateway stops. */
export class ListenStreams {
  private readonly open = new Set<() => void>();

  /**
   * subscriptions/listen: an SSE stream that opens with the acknowledgement of what it will carry,
   * then the caller's upstream list changes and resource updates, each tagged with the
   * subscription's id, until the caller closes it.
   */
  async listen(registry: McpClientRegistry, filter: ToolFilter, capabilities: ServerCapabilities, request: StatelessRequest, keepAliveMs: number): Promise<Response> {
    const subscriptionId = request.id;
    const wanted = honored((request.params.notifications ?? {}) as NotificationFilter, capabilities);
    if (wanted.resourceSubscriptions) await subscribeUpstream(registry, filter, wanted.resourceSubscriptions);
    const tagged = (method: string, params: Record<string, unknown>) => sseEvent({ jsonrpc: "2.0", method, params: { ...params, _meta: { [META.subscriptionId]: subscriptionId } } });
    const stops: Array<() => void> = [];
    const stop = () => stops.splice(0).forEach((run) => run());
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(tagged("notifications/subscriptions/acknowledged", { notifications: wanted }));
        stops.push(
          registry.onEvent((event) => {
            const notification = notificationFor(event, filter, wanted);
            if (notification) controller.enqueue(tagged(notification.method, notification.params));
          }),
        );
        // Ended by the gateway: the listen request's own result says the end was graceful.
        const end = () => {
          stop();
          controller.enqueue(sseEvent({ jsonrpc: "2.0", id: subscriptionId, result: { resultType: "complete", _meta: { [META.subscriptionId]: subscriptionId } } }));
          controller.close();
        };
        this.open.add(end);
        stops.push(() => this.open.delete(end));
      },
      cancel: stop,
    });
    return sseResponse(body, keepAliveMs);
  }

  close(): void {
    for (const end of [...this.open]) end();
  }
}
