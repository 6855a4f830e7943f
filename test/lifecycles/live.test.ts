import { afterAll, describe, expect, test } from "bun:test";
import type { ServerWebSocket } from "bun";
import { parseSSE } from "../../src/http/sse";
import { closeNodes, startGateway, startNodes } from "../support/gateway";
import { finishedJob, submittedJob } from "../support/async-jobs";
import { startMockOpenAI } from "../support/mock-openai";
import { createEndpoint } from "../support/webhook-endpoints";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { actorUntil, type TransitionBody } from "./support";

const receiver = startWebhookReceiver();
afterAll(() => receiver.stop());

describe("GET /api/actors/events across nodes", () => {
  test("a transition made on one node reaches a stream opened on the other within about a second", async () => {
    const [first, second] = await startNodes();
    try {
      const endpoint = await createEndpoint(first, receiver, "/across");
      const stream = await second.admin("/api/actors/events?kind=webhook-delivery");
      expect(stream.status).toBe(200);
      const sent = await first.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
      const { id } = (await sent.json()) as { id: string };
      const answeredAt = performance.now();
      const reader = stream.body!.pipeThrough(parseSSE()).getReader();
      const seen: TransitionBody[] = [];
      while (!seen.some((transition) => transition.to_path === "delivered")) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value.event === "transition") seen.push(JSON.parse(value.data) as TransitionBody);
      }
      const arrivedAfterMs = performance.now() - answeredAt;
      await reader.cancel();
      expect(seen.map((transition) => [transition.id, transition.to_path])).toEqual([
        [id, "queued"],
        [id, "attempting"],
        [id, "delivered"],
      ]);
      expect(arrivedAfterMs).toBeLessThan(1_500);
      const recorded = await actorUntil(second, "webhook-delivery", id, (actor) => actor.status === "done");
      expect(seen).toEqual(recorded.transitions);
    } finally {
      await closeNodes([first, second]);
    }
  });
});

/** A WebSocket server standing in for Stately's inspector: every message it received, and when the gateway connected. */
function startInspectorReceiver() {
  const messages: Array<Record<string, unknown>> = [];
  const connected = Promise.withResolvers<void>();
  const server = Bun.serve({
    port: 0,
    fetch: (request, server) => (server.upgrade(request) ? undefined : new Response("upgrade", { status: 426 })),
    websocket: {
      open: () => connected.resolve(),
      message: (_: ServerWebSocket<unknown>, message) => void messages.push(JSON.parse(String(message)) as Record<string, unknown>),
    },
  });
  return { messages, connected: connected.promise, url: `ws://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

describe("Stately's inspector", () => {
  test("an async job's prompt and reply, in the snapshots of the actors that ran it, are not sent", async () => {
    const inspector = startInspectorReceiver();
    const upstream = startMockOpenAI();
    const gw = await startGateway({ inspect: { websocket_url: inspector.url }, providers: { openai: { keys: [{ id: "k", value: "sk-k" }], network_config: { base_url: upstream.baseUrl } } } });
    try {
      await inspector.connected;
      const prompt = "the quarterly numbers are 7c3f9a";
      const job = await submittedJob(gw, "chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
      const done = await finishedJob(gw, "chat/completions", job.id);
      expect(JSON.stringify(done)).toContain(`echo: ${prompt}`);
      // The invoked run's last snapshot is what carried the reply: it is reported, its output replaced.
      const outputs = () => inspector.messages.map((message) => (message.snapshot as { output?: unknown } | undefined)?.output).filter((output) => output !== undefined);
      const deadline = performance.now() + 5_000;
      while (outputs().length === 0 && performance.now() < deadline) await Bun.sleep(10);
      expect(outputs().length).toBeGreaterThan(0);
      expect(JSON.stringify(inspector.messages)).not.toContain("7c3f9a");
      // The sealed request an invoked run takes as input is no one's to see either.
      expect(JSON.stringify(inspector.messages)).not.toMatch(/"sealedRequest":"v1\./);
      expect(outputs().every((output) => output === "[redacted]")).toBe(true);
    } finally {
      await gw.close();
      upstream.stop();
      inspector.stop();
    }
  });


  test("with inspect.websocket_url set, every actor is reported in the inspection protocol, its context redacted", async () => {
    const inspector = startInspectorReceiver();
    const { messages } = inspector;
    const gw = await startGateway({ inspect: { websocket_url: inspector.url } });
    try {
      await inspector.connected;
      const endpoint = await createEndpoint(gw, receiver, "/inspected", { headers: { "X-Inspected-Token": "inspected-header-value" } });
      const sent = await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" });
      const { id } = (await sent.json()) as { id: string };
      const deadline = performance.now() + 5_000;
      const delivered = () => messages.find((message) => message.type === "@xstate.snapshot" && (message.snapshot as { value?: unknown }).value === "delivered");
      while (!delivered() && performance.now() < deadline) await Bun.sleep(10);
      expect((delivered()!.snapshot as { context: { deliveryId: string } }).context.deliveryId).toBe(id);
      expect(messages.some((message) => message.type === "@xstate.actor")).toBe(true);
      expect(JSON.stringify(messages)).not.toContain("inspected-header-value");
      expect(JSON.stringify(messages)).not.toContain(receiver.secrets.get("/inspected")!);
    } finally {
      await gw.close();
      inspector.stop();
    }
  });
});
