import { Webhook } from "standardwebhooks";

/** How the receiver answers one delivery: a status, a full reply, never, or when the test says. */
export type Reply = number | { status: number; headers?: Record<string, string>; body?: string } | "hang" | Promise<number>;

export interface ReceivedDelivery {
  path: string;
  headers: Headers;
  body: string;
  /** The parsed payload, after the signature was verified with the endpoint's secret. */
  payload: { event: string; created_at: string; data: Record<string, unknown> };
  /** When it arrived (performance.now()). */
  arrivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  /** Signing secrets by path: every delivery to a path is verified with `standardwebhooks`. */
  secrets: Map<string, string>;
  received: ReceivedDelivery[];
  /** Deliveries whose signature did not verify (answered 401). */
  rejected: Array<{ path: string; reason: string }>;
  /** Answers for the next deliveries, in order; 200 when empty. */
  replies: Reply[];
  inFlight: number;
  maxInFlight: number;
  /** Resolves when the receiver has received `count` deliveries in all. */
  arrivals(count: number): Promise<ReceivedDelivery[]>;
  stop(): void;
}

function toResponse(reply: Exclude<Reply, "hang" | Promise<number>>): Response {
  if (typeof reply === "number") return new Response(reply < 300 ? "ok" : `status ${reply}`, { status: reply });
  return new Response(reply.body ?? "", { status: reply.status, headers: reply.headers });
}

/** A webhook receiver on a random loopback port that verifies every delivery it gets. */
export function startWebhookReceiver(): WebhookReceiver {
  const waiters: Array<{ count: number; resolve: (received: ReceivedDelivery[]) => void }> = [];
  const receiver: WebhookReceiver = {
    url: "",
    secrets: new Map(),
    received: [],
    rejected: [],
    replies: [],
    inFlight: 0,
    maxInFlight: 0,
    arrivals(count) {
      if (receiver.received.length >= count) return Promise.resolve(receiver.received);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    stop: () => server.stop(true),
  };

  const verified = (path: string, headers: Headers, body: string) => {
    const secret = receiver.secrets.get(path);
    if (!secret) throw new Error(`no secret registered for ${path}`);
    return new Webhook(secret).verify(body, Object.fromEntries(headers)) as ReceivedDelivery["payload"];
  };

  const answer = async (request: Request): Promise<Response> => {
    const reply = receiver.replies.shift() ?? 200;
    if (reply === "hang") {
      await new Promise((resolve) => request.signal.addEventListener("abort", resolve, { once: true }));
      return new Response("too late", { status: 500 });
    }
    return toResponse(reply instanceof Promise ? await reply : reply);
  };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = await request.text();
      let payload: ReceivedDelivery["payload"];
      try {
        payload = verified(path, request.headers, body);
      } catch (error) {
        receiver.rejected.push({ path, reason: String(error) });
        return new Response("signature rejected", { status: 401 });
      }
      receiver.received.push({ path, headers: request.headers, body, payload, arrivedAt: performance.now() });
      for (const waiter of waiters.filter((candidate) => receiver.received.length >= candidate.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(receiver.received);
      }
      receiver.inFlight++;
      receiver.maxInFlight = Math.max(receiver.maxInFlight, receiver.inFlight);
      try {
        return await answer(request);
      } finally {
        receiver.inFlight--;
      }
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}`;
  return receiver;
}
