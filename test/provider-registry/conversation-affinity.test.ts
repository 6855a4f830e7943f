import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually } from "../support/eventually";
import { startGateway, type TestGateway } from "../support/gateway";
import { postJson } from "../support/gateway-error";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";

let upstream: MockOpenAI;
let gw: TestGateway;

/** Input tokens each message costs in the mock. */
const TOKENS_PER_MESSAGE = 100;
const TURNS = 20;

const keyOf = (request: RecordedRequest) => request.headers.get("authorization")!.replace("Bearer secret-", "");
/** Per key, the message prefixes it has seen: as a provider's prompt cache, which is the key's own. */
const cachedPrefixes = new Map<string, Set<string>>();
/** Per key, what the mock answers it with for now instead (a 429). */
const rateLimitedKeys = new Set<string>();

/** Charges every message as input and, as cached, the longest prefix this key has seen before; then caches every prefix. */
function cachedUsage(request: RecordedRequest) {
  const messages = request.body.messages as unknown[];
  const cache = cachedPrefixes.get(keyOf(request)) ?? new Set<string>();
  cachedPrefixes.set(keyOf(request), cache);
  const prefixes = messages.map((_, index) => JSON.stringify(messages.slice(0, index + 1)));
  const cachedMessages = prefixes.findLastIndex((prefix) => cache.has(prefix)) + 1;
  for (const prefix of prefixes) cache.add(prefix);
  return { prompt_tokens: messages.length * TOKENS_PER_MESSAGE, completion_tokens: 5, total_tokens: messages.length * TOKENS_PER_MESSAGE + 5, prompt_tokens_details: { cached_tokens: cachedMessages * TOKENS_PER_MESSAGE } };
}

/** A Responses API reply whose id the next turn names in `previous_response_id`. */
const responsesReply = (request: RecordedRequest) => ({
  id: `resp_${upstream.requests.length}`,
  object: "response",
  created_at: 1,
  status: "completed",
  model: request.body.model,
  output: [{ type: "message", id: `msg_${upstream.requests.length}`, status: "completed", role: "assistant", content: [{ type: "output_text", text: "noted", annotations: [] }] }],
  usage: { input_tokens: 10, output_tokens: 1, total_tokens: 11 },
});

const threeKeys = (name: string, health: Record<string, unknown> = {}) => ({
  custom_provider_config: { base_provider_type: "openai" },
  keys: ["a", "b", "c"].map((suffix) => ({ id: `${name}-${suffix}`, value: `secret-${name}-${suffix}` })),
  network_config: { base_url: upstream.baseUrl, health },
});

beforeAll(async () => {
  upstream = startMockOpenAI();
  upstream.onRequest = (request) => {
    if (rateLimitedKeys.has(keyOf(request))) return void upstream.faults.unshift({ kind: "status", status: 429, headers: { "retry-after": "60" } });
    if (request.path.endsWith("/responses")) return void upstream.faults.unshift({ kind: "body", body: JSON.stringify(responsesReply(request)), contentType: "application/json" });
    const reply = { id: `chatcmpl-${upstream.requests.length}`, object: "chat.completion", created: 1, model: request.body.model, choices: [{ index: 0, message: { role: "assistant", content: `reply ${upstream.requests.length}` }, finish_reason: "stop" }], usage: cachedUsage(request) };
    upstream.faults.unshift({ kind: "body", body: JSON.stringify(reply), contentType: "application/json" });
  };
  gw = await startGateway({ providers: { sticky: threeKeys("sticky", { conversation_affinity: true }), spread: threeKeys("spread") } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** Requests answered through the gateway, each a log row. */
let answered = 0;

interface Turn {
  cached: number;
  key: string;
}

/** Runs a conversation of `turns` turns, each sending the whole history, as chat clients do. */
async function converse(model: string, opening: string, turns: number, headers: Record<string, string> = {}): Promise<Turn[]> {
  const messages: Array<{ role: string; content: string }> = [{ role: "system", content: "You are terse." }];
  const seen: Turn[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: "user", content: `${opening}, turn ${turn}` });
    const start = upstream.requests.length;
    const response = await postJson(`${gw.url}/v1/chat/completions`, { model, messages }, headers);
    expect(response.status).toBe(200);
    answered++;
    const body = (await response.json()) as { choices: Array<{ message: { role: string; content: string } }>; usage: { prompt_tokens_details: { cached_tokens: number } } };
    messages.push(body.choices[0]!.message);
    seen.push({ cached: body.usage.prompt_tokens_details.cached_tokens, key: keyOf(upstream.requests.at(-1)!) });
    expect(upstream.requests.length).toBeGreaterThan(start);
  }
  return seen;
}

type Row = { provider: string; conversation_id: string | null };
/** The request log once it holds a row for every request answered. */
const logRows = () =>
  eventually(
    async () => ((await (await gw.admin("/api/logs?limit=1000")).json()) as { logs: Row[] }).logs,
    (logs) => logs.length >= answered,
  );

const cachedTotal = (turns: Turn[]) => turns.reduce((sum, turn) => sum + turn.cached, 0);
/** Each turn after the first finds the whole previous request cached: system, and two messages a turn. */
const bestPossible = (turns: number) => Array.from({ length: turns - 1 }, (_, turn) => (2 * turn + 2) * TOKENS_PER_MESSAGE).reduce((a, b) => a + b, 0);

describe("conversation affinity keeps a conversation on one key, where the provider cached its prompt", () => {
  test(`over ${TURNS} turns on 3 keys, every turn after the first is answered from the cache; spread by weight, far less is`, async () => {
    const sticky = await converse("sticky/model", "plan a trip", TURNS);
    const spread = await converse("spread/model", "plan a trip", TURNS);
    expect(new Set(sticky.map((turn) => turn.key)).size).toBe(1);
    expect(cachedTotal(sticky)).toBe(bestPossible(TURNS));
    expect(new Set(spread.map((turn) => turn.key)).size).toBeGreaterThan(1);
    expect(cachedTotal(spread)).toBeLessThan(cachedTotal(sticky));
  });

  test("a conversation whose key is rate limited moves to another key and stays there", async () => {
    const [first] = await converse("sticky/model", "write a poem", 1, { "x-gw-session-id": "poem-session" });
    rateLimitedKeys.add(first!.key);
    const later = await converse("sticky/model", "write a poem", 8, { "x-gw-session-id": "poem-session" });
    rateLimitedKeys.clear();
    expect(later.map((turn) => turn.key).every((key) => key === later[0]!.key && key !== first!.key)).toBe(true);
  });

  test("a Responses API conversation chained by previous_response_id is one conversation, whose id every turn's log row carries", async () => {
    const before = new Set((await logRows()).map((row) => row.conversation_id));
    let previous: string | undefined;
    for (let turn = 0; turn < 6; turn++) {
      const response = await postJson(`${gw.url}/v1/responses`, { model: "sticky/model", input: `step ${turn}`, previous_response_id: previous });
      expect(response.status).toBe(200);
      answered++;
      previous = ((await response.json()) as { id: string }).id;
    }
    const added = (await logRows()).map((row) => row.conversation_id).filter((id) => !before.has(id));
    expect(added).toHaveLength(6);
    expect(new Set(added).size).toBe(1);
  });

  test("log rows carry the conversation id: the client's session header, or one derived from the opening", async () => {
    await converse("sticky/model", "name this", 2, { "x-gw-session-id": "named-session" });
    await converse("sticky/model", "derive this", 2);
    await converse("spread/model", "derive this", 1);
    const rows = await logRows();
    const sticky = rows.filter((row) => row.provider === "sticky").map((row) => row.conversation_id);
    expect(sticky.filter((id) => id === "named-session")).toHaveLength(2);
    const named = (await (await gw.admin("/api/logs?conversation_ids=named-session")).json()) as { logs: Row[] };
    expect(named.logs.map((row) => row.conversation_id)).toEqual(["named-session", "named-session"]);
    expect(sticky.filter((id) => id === "poem-session")).toHaveLength(9);
    const derived = sticky.filter((id) => id?.startsWith("opening:"));
    // The trip of the first test (20 turns), the Responses chain (6) and this one (2): three conversations.
    expect(new Set(derived).size).toBe(3);
    expect(derived).toHaveLength(TURNS + 6 + 2);
    // A provider without affinity computes nothing.
    expect(rows.filter((row) => row.provider === "spread").every((row) => row.conversation_id === null)).toBe(true);
  });
});
