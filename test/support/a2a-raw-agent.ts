import type { ReceivedRequest } from "./a2a-sdk-agent";

/**
 * A hand-written A2A agent on the HTTP+JSON binding, for what the SDK agent will not do:
 * a stream whose connection dies midway, and a subscription that does not open with the Task.
 *
 * - `POST /rest/message:stream` sends the task (working) and then holds the stream open
 *   until the test calls `dropStreams()`, which cuts every open stream's connection, or
 *   the gateway cancels it.
 * - `GET|POST /rest/tasks/{id}:subscribe` sends `subscribeEvents` (by default one status
 *   update to completed) and ends.
 */
export interface RawAgent {
  baseUrl: string;
  requests: ReceivedRequest[];
  /** The events a subscription answers with; `{taskId}` in them is replaced by the task's id. */
  subscribeEvents: Array<Record<string, unknown>>;
  /** Resolves once a stream is open (its first event written). */
  nextStreamOpened(): Promise<void>;
  /** Resolves when the gateway, its caller gone, cancels an open stream. */
  nextStreamCancelled(): Promise<void>;
  dropStreams(): void;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();
const sse = (event: unknown) => encoder.encode(`data: ${JSON.stringify(event)}\n\n`);

export function startRawAgent(): RawAgent {
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const openedWaiters: Array<() => void> = [];
  const cancelledWaiters: Array<() => void> = [];
  const requests: ReceivedRequest[] = [];
  const agent: Pick<RawAgent, "subscribeEvents"> & { baseUrl?: string } = {
    subscribeEvents: [{ statusUpdate: { taskId: "{taskId}", contextId: "ctx-raw", status: { state: "TASK_STATE_COMPLETED" } } }],
  };

  const holdingStream = (taskId: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        open.add(controller);
        controller.enqueue(sse({ task: { id: taskId, contextId: "ctx-raw", status: { state: "TASK_STATE_WORKING" } } }));
        openedWaiters.shift()?.();
      },
      cancel() {
        open.clear();
        cancelledWaiters.shift()?.();
      },
    });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // A cut stream is the point here, not something to log.
    development: false,
    error: () => new Response(null, { status: 500 }),
    fetch(request) {
      const url = new URL(request.url);
      requests.push({ method: request.method, path: url.pathname, headers: request.headers });
      if (url.pathname === "/.well-known/agent-card.json") {
        const card = { name: "Raw agent", description: "hand-written", version: "1.0.0", capabilities: { streaming: true }, supportedInterfaces: [{ url: `${agent.baseUrl}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }] };
        return Response.json(card);
      }
      if (url.pathname === "/rest/message:stream") return new Response(holdingStream(`raw-${crypto.randomUUID()}`), { headers: { "content-type": "text/event-stream" } });
      const subscribe = /^\/rest\/tasks\/([^/]+):subscribe$/.exec(url.pathname);
      if (subscribe) {
        const taskId = decodeURIComponent(subscribe[1]!);
        const body = agent.subscribeEvents.map((event) => JSON.stringify(event).replaceAll("{taskId}", taskId)).map((json) => `data: ${json}\n\n`).join("");
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }
      return Response.json({ error: { code: 404, status: "NOT_FOUND", message: "not here", details: [] } }, { status: 404 });
    },
  });

  return Object.assign(agent, {
    baseUrl: `http://127.0.0.1:${server.port}`,
    requests,
    nextStreamOpened: () => new Promise<void>((resolve) => openedWaiters.push(resolve)),
    nextStreamCancelled: () => new Promise<void>((resolve) => cancelledWaiters.push(resolve)),
    dropStreams() {
      for (const controller of open) controller.error(new Error("raw agent: connection cut by the test"));
      open.clear();
    },
    stop: () => server.stop(true),
  });
}
