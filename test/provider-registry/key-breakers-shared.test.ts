import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeNodes, startGateway, startNodes, type TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { postJson } from "../support/gateway-error";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";
import { TestClock } from "../support/test-clock";

let upstream: MockOpenAI;
const keyOf = (request: RecordedRequest) => request.headers.get("authorization")?.replace("Bearer secret-", "");
/** Keys the mock answers 429 for now. */
const limited = new Set<string>();

const providers = () => ({
  openai: {
    keys: [
      { id: "first", value: "secret-first", weight: 1 },
      { id: "spare", value: "secret-spare", weight: 0 },
    ],
    network_config: { base_url: upstream.baseUrl, health: { failure_threshold: 3 } },
  },
});

beforeAll(() => {
  upstream = startMockOpenAI();
  upstream.onRequest = (request) => {
    if (limited.has(keyOf(request) ?? "")) upstream.faults.unshift({ kind: "status", status: 429 });
  };
});
afterAll(() => upstream.stop());

async function chat(gw: TestGateway) {
  const start = upstream.requests.length;
  const response = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o", messages: [{ role: "user", content: "hello" }] });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return upstream.requests.slice(start).map(keyOf);
}

async function stateOf(gw: TestGateway, keyId: string) {
  const body = (await (await gw.admin("/api/providers/openai")).json()) as { keys: Array<{ id: string; health: { state: string; reopens_at?: string } }> };
  return body.keys.find((key) => key.id === keyId)!.health;
}

test("a key opened on one node is open on the other within 2 s, which stops sending to it", async () => {
  const nodes = await startNodes({ providers: providers() });
  const [a, b] = nodes;
  try {
    limited.add("first");
    for (let i = 0; i < 3; i++) expect(await chat(a)).toEqual(["first", "spare"]);
    expect((await stateOf(a, "first")).state).toBe("open");
    const seen = await eventually(() => stateOf(b, "first"), (health) => health.state === "open", 2_000);
    expect(seen.state).toBe("open");
    expect(seen.reopens_at).toBe((await stateOf(a, "first")).reopens_at);
    expect(await chat(b)).toEqual(["spare"]);
  } finally {
    limited.clear();
    await closeNodes(nodes);
  }
});

test("a restart keeps an open key open until its cooldown ends", async () => {
  const clock = new TestClock();
  const gw = await startGateway({ providers: providers() }, { runtime: { actorClock: clock } });
  let restarted: TestGateway | undefined;
  try {
    limited.add("first");
    for (let i = 0; i < 3; i++) await chat(gw);
    const opened = await stateOf(gw, "first");
    expect(opened.state).toBe("open");
    limited.clear();
    await gw.stop();
    clock.increment(10_000);

    restarted = await gw.restart();
    expect(await stateOf(restarted, "first")).toEqual(opened);
    expect(await chat(restarted)).toEqual(["spare"]);
    // What was left of the cooldown, not a new one.
    await clock.timerSet(20_000);
    clock.increment(20_000);
    expect((await stateOf(restarted, "first")).state).toBe("half_open");
    expect(await chat(restarted)).toEqual(["first"]);
    expect((await stateOf(restarted, "first")).state).toBe("closed");
  } finally {
    limited.clear();
    await (restarted ?? gw).close();
  }
});
