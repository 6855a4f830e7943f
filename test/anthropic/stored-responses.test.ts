import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway } from "../support/gateway";
import { ANTHROPIC_UPSTREAM_KEY, type AnthropicFixture, openAIClientOf, RESPONSES_WEATHER_TOOL, startAnthropicFixture } from "./fixture";

/**
 * The Responses API keeps state on OpenAI's side: `previous_response_id` continues a conversation
 * and `responses.retrieve` reads a response back. On a provider without that API the gateway
 * keeps the responses it writes, so the same client code works there.
 */

let fixture: AnthropicFixture;
let client: OpenAI;

beforeAll(async () => {
  fixture = await startAnthropicFixture();
  client = openAIClientOf(fixture.gw.url);
});
afterAll(() => fixture.close());

const MODEL = "anthropic/claude-sonnet-4-5";
const lastUpstream = () => fixture.anthropicUpstream.requests.at(-1)!.body as { system?: unknown; messages: Array<{ role: string; content: unknown }> };
/** Each message Anthropic got: its role, and its text or the types of its blocks. */
const turnsSent = () =>
  lastUpstream().messages.map((message) => {
    if (typeof message.content === "string") return [message.role, message.content];
    const blocks = message.content as Array<{ type: string; text?: string }>;
    return [message.role, blocks.map((block) => (block.type === "text" ? block.text : block.type)).join("+")];
  });

/** Waits until the gateway has kept `id` (it is written once the reply has left). */
async function kept(id: string, reader: OpenAI = client): Promise<OpenAI.Responses.Response> {
  for (;;) {
    const found = await reader.responses.retrieve(id).catch((error: unknown) => (error instanceof OpenAI.NotFoundError ? undefined : Promise.reject(error)));
    if (found) return found;
    await Bun.sleep(5);
  }
}

describe("previous_response_id on a provider without a Responses API", () => {
  test("continues the conversation: the model gets the earlier turns, without the earlier instructions", async () => {
    const first = await client.responses.create({ model: MODEL, instructions: "Be brief.", input: "one two three" });
    await kept(first.id);
    const second = await client.responses.create({ model: MODEL, previous_response_id: first.id, input: "four five" });
    expect(second.output_text).toBe("echo: four five");
    expect(second.previous_response_id).toBe(first.id);
    expect(turnsSent()).toEqual([
      ["user", "one two three"],
      ["assistant", "echo: one two three"],
      ["user", "four five"],
    ]);
    expect(lastUpstream().system).toBeUndefined();
    await kept(second.id);
    await client.responses.create({ model: MODEL, previous_response_id: second.id, input: "six" });
    expect(turnsSent().map(([role]) => role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  });

  test("a streamed response is kept too, once its stream has ended", async () => {
    const streamed = await client.responses.stream({ model: MODEL, input: "seven eight" }).finalResponse();
    expect((await kept(streamed.id)).output_text).toBe("echo: seven eight");
    await client.responses.create({ model: MODEL, previous_response_id: streamed.id, input: "nine" });
    expect(turnsSent()).toEqual([
      ["user", "seven eight"],
      ["assistant", "echo: seven eight"],
      ["user", "nine"],
    ]);
  });

  test("a tool loop the Agents SDK way: only the tool's output is sent, the call comes from the stored response", async () => {
    const first = await client.responses.create({ model: MODEL, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL] });
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call")!;
    await kept(first.id);
    const second = await client.responses.create({ model: MODEL, tools: [RESPONSES_WEATHER_TOOL], previous_response_id: first.id, input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }] });
    expect(second.output_text).toBe("tool said: sunny");
    expect(turnsSent()).toEqual([
      ["user", "what is the weather?"],
      ["assistant", "tool_use"],
      ["user", "tool_result"],
    ]);
  });

  test("continued on OpenAI's own API: the earlier turns go along, without the thinking sealed for Anthropic", async () => {
    const reasoning = { effort: "low" as const };
    const first = await client.responses.create({ model: MODEL, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL], reasoning, max_output_tokens: 4096 });
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    await kept(first.id);
    const second = await client.responses.create({ model: "openai/gpt-4o", tools: [RESPONSES_WEATHER_TOOL], previous_response_id: first.id, input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }] });
    expect(second.status).toBe("completed");
    const sent = fixture.openaiUpstream.requests.at(-1)!.body;
    expect(sent.previous_response_id).toBeUndefined();
    expect((sent.input as Array<{ type?: string; role?: string }>).map((item) => item.type ?? item.role)).toEqual(["user", "function_call", "function_call_output"]);
  });

  test("retrieve returns the response as the client got it; delete removes it, and it can no longer be continued", async () => {
    const created = await client.responses.create({ model: MODEL, input: "keep me", metadata: { case: "retrieve" } });
    const retrieved = await kept(created.id);
    expect(retrieved).toEqual(created);
    await client.responses.delete(created.id);
    expect(await client.responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    await expectGatewayError(await postJson(`${fixture.gw.url}/v1/responses`, { model: MODEL, previous_response_id: created.id, input: "and?" }), 400, { param: "previous_response_id" });
    await expectGatewayError(await fetch(`${fixture.gw.url}/v1/responses/${created.id}`, { method: "DELETE" }), 404);
  });

  test("input_items lists what the model was given, the whole chain, newest first, a page at a time", async () => {
    const first = await client.responses.create({ model: MODEL, input: "alpha" });
    await kept(first.id);
    const second = await client.responses.create({ model: MODEL, previous_response_id: first.id, input: [{ role: "user", content: [{ type: "input_text", text: "beta" }] }] });
    await kept(second.id);
    const listed: OpenAI.Responses.ResponseItem[] = [];
    for await (const item of client.responses.inputItems.list(second.id, { limit: 2 })) listed.push(item);
    const described = listed.map((item) => {
      const message = item as OpenAI.Responses.ResponseInputMessageItem | OpenAI.Responses.ResponseOutputMessage;
      return [message.role, (message.content[0] as { type: string; text: string }).type, (message.content[0] as { text: string }).text];
    });
    expect(described).toEqual([
      ["user", "input_text", "beta"],
      ["assistant", "output_text", "echo: alpha"],
      ["user", "input_text", "alpha"],
    ]);
    expect(new Set(listed.map((item) => item.id)).size).toBe(3);
    const ascending = await client.responses.inputItems.list(second.id, { order: "asc" });
    expect(ascending.data.map((item) => item.id)).toEqual(listed.map((item) => item.id).reverse());
    await expectGatewayError(await fetch(`${fixture.gw.url}/v1/responses/${second.id}/input_items?limit=500`), 400, { param: "limit" });
    await expectGatewayError(await fetch(`${fixture.gw.url}/v1/responses/${second.id}/input_items?after=msg_nowhere`), 400, { param: "after" });
  });

  test("store: false keeps nothing", async () => {
    const unkept = await client.responses.create({ model: MODEL, input: "forget me", store: false });
    expect((unkept as unknown as { store: boolean }).store).toBe(false);
    // A response created after it is kept, so the gateway has written what it was going to.
    const later = await client.responses.create({ model: MODEL, input: "after" });
    await kept(later.id);
    expect(await client.responses.retrieve(unkept.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("stored responses survive a restart of the gateway", async () => {
    const gw = await startGateway({ providers: { anthropic: { keys: [{ id: "ant-1", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: fixture.anthropicUpstream.baseUrl } } } });
    const before = openAIClientOf(gw.url);
    const created = await before.responses.create({ model: MODEL, input: "durable" });
    await gw.stop();
    const restarted = await gw.restart();
    try {
      const after = openAIClientOf(restarted.url);
      expect((await after.responses.retrieve(created.id)).output_text).toBe("echo: durable");
    } finally {
      await restarted.close();
    }
  });

  test("a response is read and continued only with the virtual key that created it", async () => {
    const keyNamed = async (name: string) => {
      const response = await fixture.gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name } });
      return ((await response.json()) as { virtual_key: { value: string } }).virtual_key.value;
    };
    const [alice, bob] = [await keyNamed("responses-alice"), await keyNamed("responses-bob")];
    const as = (key: string) => openAIClientOf(fixture.gw.url, key);
    const created = await as(alice).responses.create({ model: MODEL, input: "alice's" });
    await kept(created.id, as(alice));
    expect(await as(bob).responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await client.responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await postJson(`${fixture.gw.url}/v1/responses`, { model: MODEL, previous_response_id: created.id, input: "mine now" }, { authorization: `Bearer ${bob}` });
    await expectGatewayError(continued, 400, { param: "previous_response_id" });
    expect(await as(bob).responses.delete(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await as(alice).responses.retrieve(created.id)).output_text).toBe("echo: alice's");
  });
});

describe("a long conversation through previous_response_id", () => {
  const anthropicOnly = () => ({ anthropic: { keys: [{ id: "ant-1", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: fixture.anthropicUpstream.baseUrl } } });

  /** Creates `turns` responses, each continuing the one before, and returns their ids. */
  async function converse(reader: OpenAI, turns: number, previous?: string): Promise<string[]> {
    const ids: string[] = [];
    for (let turn = 0; turn < turns; turn++) {
      const created = await reader.responses.create({ model: MODEL, input: `turn ${turn}`, ...(previous ? { previous_response_id: previous } : {}) });
      previous = (await kept(created.id, reader)).id;
      ids.push(previous);
    }
    return ids;
  }

  test("is stored once, not once per turn, and its last turn still lists every item", async () => {
    const gw = await startGateway({ providers: anthropicOnly() });
    try {
      const reader = openAIClientOf(gw.url);
      const ids = await converse(reader, 10);
      const listed = await reader.responses.inputItems.list(ids.at(-1)!, { order: "asc", limit: 100 });
      expect(listed.data).toHaveLength(19);
      const database = createClient({ url: gw.databaseUrl });
      try {
        const { rows } = await database.execute("SELECT sum(json_array_length(input)) AS items FROM stored_responses");
        // Ten user messages, each kept one time; a copy per turn would be 1 + 3 + ... + 19 = 100.
        expect(rows[0]!.items).toBe(10);
      } finally {
        database.close();
      }
    } finally {
      await gw.close();
    }
  });

  test("deleting a turn in the middle leaves the later turns whole", async () => {
    const [first, second, third] = await converse(client, 3);
    await client.responses.delete(second!);
    const listed = await client.responses.inputItems.list(third!, { order: "asc" });
    expect(listed.data).toHaveLength(5);
    await client.responses.create({ model: MODEL, previous_response_id: third!, input: "and then?" });
    expect(turnsSent().map(([, text]) => text)).toEqual(["turn 0", "echo: turn 0", "turn 1", "echo: turn 1", "turn 2", "echo: turn 2", "and then?"]);
    expect(await client.responses.retrieve(second!).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await client.responses.retrieve(first!)).output_text).toBe("echo: turn 0");
  });

  test("an earlier turn expiring does not cut a later one short", async () => {
    let now = Date.parse("2026-06-01T00:00:00Z");
    const gw = await startGateway({ providers: anthropicOnly(), stored_responses: { retention_days: 2 } }, { runtime: { clock: () => now } });
    try {
      const reader = openAIClientOf(gw.url);
      const [first] = await converse(reader, 1);
      now += 1.5 * 86_400_000;
      const [second] = await converse(reader, 1, first);
      now += 86_400_000;
      // This write sweeps the first turn, which has expired.
      await converse(reader, 1);
      expect(await reader.responses.retrieve(first!).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
      await reader.responses.create({ model: MODEL, previous_response_id: second!, input: "still there?" });
      expect(turnsSent().map(([, text]) => text)).toEqual(["turn 0", "echo: turn 0", "turn 0", "echo: turn 0", "still there?"]);
    } finally {
      await gw.close();
    }
  });
});

describe("stored_responses in the config", () => {
  const anthropicOnly = () => ({ anthropic: { keys: [{ id: "ant-1", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: fixture.anthropicUpstream.baseUrl } } });

  test("enabled: false keeps nothing, and says so in the response", async () => {
    const gw = await startGateway({ providers: anthropicOnly(), stored_responses: { enabled: false } });
    let created: OpenAI.Responses.Response;
    try {
      created = await openAIClientOf(gw.url).responses.create({ model: MODEL, input: "not kept" });
      expect((created as unknown as { store: boolean }).store).toBe(false);
    } finally {
      await gw.stop();
    }
    // After a stop every write has landed: nothing was kept.
    const restarted = await gw.restart();
    try {
      await expectGatewayError(await fetch(`${restarted.url}/v1/responses/${created.id}`), 404);
      await expectGatewayError(await postJson(`${restarted.url}/v1/responses`, { model: MODEL, previous_response_id: created.id, input: "and?" }), 400, { param: "previous_response_id" });
    } finally {
      await restarted.close();
    }
  });

  test("retention_days: a response older than that is gone", async () => {
    let now = Date.parse("2026-06-01T00:00:00Z");
    const gw = await startGateway({ providers: anthropicOnly(), stored_responses: { retention_days: 2 } }, { runtime: { clock: () => now } });
    try {
      const reader = openAIClientOf(gw.url);
      const created = await reader.responses.create({ model: MODEL, input: "short-lived" });
      await kept(created.id, reader);
      now += 2 * 86_400_000 - 1_000;
      expect((await reader.responses.retrieve(created.id)).id).toBe(created.id);
      now += 2_000;
      expect(await reader.responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
      // The next write takes the expired row out of the table, not only out of sight.
      await kept((await reader.responses.create({ model: MODEL, input: "newer" })).id, reader);
      const database = createClient({ url: gw.databaseUrl });
      try {
        const { rows } = await database.execute("SELECT id FROM stored_responses");
        expect(rows.map((row) => row.id)).not.toContain(created.id);
        expect(rows).toHaveLength(1);
      } finally {
        database.close();
      }
    } finally {
      await gw.close();
    }
  });
});
