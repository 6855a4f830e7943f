import { afterAll, beforeAll, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { closeNodes, startNodes, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { createVirtualKey, openAIProvider } from "../governance/support";
import { expectIdsFrom, resumableChat, resume, SseReader, TWENTY_CHUNKS } from "./support";

/** How often a reader on the node that does not hold a stream looks for its new events. */
const FOLLOW_MS = 50;

let upstream: MockOpenAI;
let nodes: [TestGateway, TestGateway];

beforeAll(async () => {
  upstream = startMockOpenAI();
  nodes = await startNodes({ providers: { openai: openAIProvider(upstream) }, resumable_streams: { flush_interval_ms: 20, follow_interval_ms: FOLLOW_MS } });
  // Two gateways and a libSQL server: slower to start than one on a busy machine.
}, 20_000);
/** A virtual key created on one node, once the other node has read it (its change check). */
async function keyOnBoth(name: string) {
  const key = await createVirtualKey(nodes[0], { name });
  await eventually(() => fetch(`${nodes[1].url}/v1/models`, { headers: { "x-gw-vk": key.value } }), (response) => response.status === 200);
  return key;
}

afterAll(async () => {
  await closeNodes(nodes);
  upstream.stop();
}, 20_000);

test("a reader on the other node follows a stream through the database: every event once, in order, live", async () => {
  const [holder, other] = nodes;
  const key = await keyOnBoth("across-nodes");
  const held = upstream.holdNextStream();
  const opened = resumableChat(holder, key.value);
  await held.arrived;
  held.release(3);
  const response = await opened;
  const id = response.headers.get("x-gw-stream-id")!;
  const original = new SseReader(response.body!);
  expectIdsFrom(await original.take(3), 1, 3);

  const follower = new SseReader((await resume(other, key.value, id, "?after=1")).body!);
  // What was stored arrives first, before the upstream sends anything more.
  expectIdsFrom(await follower.take(2), 2, 3);
  held.release(5);
  expectIdsFrom(await follower.take(5), 4, 8);
  held.release(100);
  const rest = await follower.rest();
  expectIdsFrom(rest, 9, 21);
  const all = await original.rest();
  expect(rest.map((event) => event.data)).toEqual(all.slice(5).map((event) => event.data));
  expect(rest.at(-1)!.data).toBe("[DONE]");
  expect(upstream.requests).toHaveLength(1);
}, 15_000);

test("DELETE on the other node cancels the upstream call the holder makes", async () => {
  const [holder, other] = nodes;
  const key = await keyOnBoth("cancelled-across");
  const held = upstream.holdNextStream();
  const opened = resumableChat(holder, key.value, { messages: [{ role: "user", content: TWENTY_CHUNKS }] });
  await held.arrived;
  held.release(2);
  const id = (await opened).headers.get("x-gw-stream-id")!;
  const cancelled = await fetch(`${other.url}/v1/streams/${id}`, { method: "DELETE", headers: { "x-gw-vk": key.value } });
  expect(cancelled.status).toBe(200);
  expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");
  await held.cancelled;
}, 15_000);
