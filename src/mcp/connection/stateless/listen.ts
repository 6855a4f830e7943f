import type { JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import type { ClientIdentity } from "./envelope";
import { enveloped } from "./envelope";
import { exchange, type StatelessEndpoint } from "./exchange";

/** What a subscriptions/listen request asks to hear about. */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

/**
 * subscriptions/listen: the one long-lived request on which a 2026-07-28 server sends its list
 * changes and resource updates. A new filter replaces the stream; the stream ending by itself
 * (the server stopped, the network dropped) is `lost`, as a session's end was before.
 */
export class ListenStream {
  private current?: AbortController;
  private opened = 0;

  constructor(
    private readonly endpoint: StatelessEndpoint,
    private readonly identity: () => ClientIdentity,
    private readonly deliver: (notification: JSONRPCNotification) => void,
    private readonly lost: (reason: string) => void,
  ) {}

  /** Listens with this filter from now on (nothing when it is empty); resolves once the server acknowledged the stream. */
  async listen(filter: ListenFilter): Promise<void> {
    this.close();
    if (Object.keys(filter).length === 0) return;
    const controller = new AbortController();
    this.current = controller;
    const { body, headers } = enveloped({ jsonrpc: "2.0", id: `listen-${++this.opened}`, method: "subscriptions/listen", params: { notifications: filter } }, this.identity());
    const acknowledged = Promise.withResolvers<void>();
    let listening = false;
    const heard = (notification: JSONRPCNotification) => {
      listening = true;
      acknowledged.resolve();
      if (notification.method !== ACKNOWLEDGED) this.deliver(notification);
    };
    const ended = (reason: string) => {
      acknowledged.reject(new Error(reason));
      if (listening && !controller.signal.aborted) this.lost(reason);
    };
    exchange(this.endpoint, body, headers, controller.signal, heard).then(
      (answer) => ended("error" in answer ? `subscriptions/listen was refused: ${answer.error.message}` : "the server ended subscriptions/listen"),
      (error: unknown) => ended(`subscriptions/listen failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    await acknowledged.promise;
  }

  close(): void {
    this.current?.abort();
    this.current = undefined;
  }
}
