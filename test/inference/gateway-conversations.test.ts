import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { ANTHROPIC_UPSTREAM_KEY, RESPONSES_WEATHER_TOOL } from "../anthropic/fixture";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * OpenAI's Conversations API, where no provider keeps conversations (Anthropic, Groq...): the
 * gateway keeps them, and a Responses call naming one reads the earlier turns from it and adds
 * its own, on any provider. With OpenAI configured, `x-gw-provider: gateway` asks for one the
 * gateway keeps.
 */

let anthropic: MockAnthropic;
let groq: MockOpenAI;
let openai: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

const MODEL = "anthropic/claude-sonnet-4-5";
const clientOf = (url: string, apiKey = "unused", headers: Record<string, string> = {}) => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0, defaultHeaders: headers });
const anthropicProvider = () => ({ keys: [{ id: "ant-1", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: anthropic.baseUrl } });
const groqProvider = () => ({ keys: [{ id: "groq-1", value: "gsk-upstream-0001" }], network_config: { base_url: groq.baseUrl } });

/** Each message Anthropic got last: its role, and its text or the types of its blocks. */
function turnsSent(): string[][] {
  const { messages } = anthropic.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
  return messages.map((message) => {
    if (typeof message.content === "string") return [message.role, message.content];
    const blocks = message.content as Array<{ type: string; text?: string }>;
    return [message.role, blocks.map((block) => (block.type === "text" ? block.text! : block.type)).join("+")];
  });
}

/** Every item of a conversation, oldest first, as role and text (or type). */
async function itemsOf(reader: OpenAI, id: string): Promise<string[][]> {
  const items: OpenAI.Conversations.ConversationItem[] = [];
  for await (const item of reader.conversations.items.list(id, { order: "asc" })) items.push(item);
  return items.map((item) => {
    if (item.type !== "message") return [item.type];
    const text = item.content.map((part) => ("text" in part ? part.text : part.type)).join("");
    return [item.role, text];
  });
}

beforeAll(async () => {
  anthropic = startMockAnthropic(ANTHROPIC_UPSTREAM_KEY);
  groq = startMockOpenAI();
  openai = startMockOpenAI();
  gw = await startGateway({ providers: { anthropic: anthropicProvider(), groq: groqProvider() } });
  client = clientOf(gw.url);
});
afterAll(async () => {
  await gw.close();
  anthropic.stop();
  groq.stop();
  openai.stop();
});

test("what only OpenAI keeps is not asked of another OpenAI-format API: Groq gets no container call", async () => {
  const before = groq.requests.length;
  await expectGatewayError(await postJson(`${gw.url}/v1/containers`, { name: "sandbox" }), 404);
  expect(groq.requests.length).toBe(before);
});

describe("a conversation the gateway keeps", () => {
  test("is created, read, updated, its items listed, added, read and deleted with the OpenAI SDK", async () => {
    const conversation = await client.conversations.create({ metadata: { topic: "otters" }, items: [{ type: "message", role: "user", content: "hello" }] });
    expect(conversation).toMatchObject({ object: "conversation", metadata: { topic: "otters" } });
    expect(conversation.id).toMatch(/^conv_[0-9a-f]{32}$/);
    // Groq has a Responses API but keeps no conversations: nothing was sent to it.
    expect(groq.requests.some((request) => request.path.includes("/conversations"))).toBe(false);

    expect(await client.conversations.retrieve(conversation.id)).toEqual(conversation);
    expect((await client.conversations.update(conversation.id, { metadata: { topic: "seals" } })).metadata).toEqual({ topic: "seals" });
    expect((await client.conversations.retrieve(conversation.id)).metadata).toEqual({ topic: "seals" });

    const added = await client.conversations.items.create(conversation.id, { items: [{ type: "message", role: "assistant", content: "hi there" }, { role: "user", content: [{ type: "input_text", text: "how are you?" }] }] });
    expect(added.data).toHaveLength(2);
    expect(added.data[0]).toMatchObject({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hi there" }] });
    expect(await itemsOf(client, conversation.id)).toEqual([
      ["user", "hello"],
      ["assistant", "hi there"],
      ["user", "how are you?"],
    ]);
    // Newest first unless asked otherwise.
    const newest = await client.conversations.items.list(conversation.id, { limit: 1 });
    expect(newest.data.map((item) => item.id)).toEqual([added.data[1]!.id]);
    expect(newest.has_more).toBe(true);

    const itemId = added.data[0]!.id!;
    expect(await client.conversations.items.retrieve(itemId, { conversation_id: conversation.id })).toEqual(added.data[0]!);
    expect((await client.conversations.items.delete(itemId, { conversation_id: conversation.id })).id).toBe(conversation.id);
    expect(await itemsOf(client, conversation.id)).toEqual([
      ["user", "hello"],
      ["user", "how are you?"],
    ]);
    expect(await client.conversations.items.retrieve(itemId, { conversation_id: conversation.id }).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);

    expect(await client.conversations.delete(conversation.id)).toEqual({ id: conversation.id, object: "conversation.deleted", deleted: true });
    expect(await client.conversations.retrieve(conversation.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("pages through its items with after, in either order", async () => {
    const items = Array.from({ length: 5 }, (_, index) => ({ type: "message" as const, role: "user" as const, content: `item ${index}` }));
    const { id } = await client.conversations.create({ items });
    const texts = async (order: "asc" | "desc") => {
      const seen: string[] = [];
      for await (const item of client.conversations.items.list(id, { order, limit: 2 })) seen.push((item as { content: Array<{ text: string }> }).content[0]!.text);
      return seen;
    };
    expect(await texts("asc")).toEqual(["item 0", "item 1", "item 2", "item 3", "item 4"]);
    expect(await texts("desc")).toEqual(["item 4", "item 3", "item 2", "item 1", "item 0"]);
  });

  test("every item keeps an id of its own, though items come with one another already has (a server whose ids repeat)", async () => {
    const repeated = (content: string) => ({ type: "message" as const, role: "assistant" as const, content, id: "msg_repeated", status: "completed" as const });
    const { id } = await client.conversations.create({ items: [repeated("first")] });
    const added = await client.conversations.items.create(id, { items: [repeated("second"), repeated("third")] });
    const ids: string[] = [];
    for await (const item of client.conversations.items.list(id, { order: "asc" })) ids.push(item.id!);
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toBe("msg_repeated");
    expect(added.data.map((item) => item.id)).toEqual(ids.slice(1));
    const second = (await client.conversations.items.retrieve(ids[1]!, { conversation_id: id })) as { content: Array<{ text: string }> };
    expect(second.content[0]!.text).toBe("second");
  });

  test("bad input is a 400 naming the field", async () => {
    const url = `${gw.url}/v1/conversations`;
    await expectGatewayError(await postJson(url, { items: [{ role: "robot", content: "beep" }] }), 400, { param: "items[0].role" });
    await expectGatewayError(await postJson(url, { items: "hello" }), 400, { param: "items" });
    await expectGatewayError(await postJson(url, { items: Array.from({ length: 21 }, () => ({ role: "user", content: "x" })) }), 400, { param: "items" });
    await expectGatewayError(await postJson(url, { metadata: { topic: 7 } }), 400, { param: "metadata.topic" });
    const { id } = await client.conversations.create({});
    await expectGatewayError(await fetch(`${url}/${id}/items?limit=500`), 400, { param: "limit" });
    await expectGatewayError(await fetch(`${url}/${id}/items?after=msg_nowhere`), 400, { param: "after" });
    await expectGatewayError(await postJson(`${url}/${id}/items`, {}), 400, { param: "items" });
    await expectGatewayError(await postJson(`${url}/conv_00000000000000000000000000000000/items`, { items: [] }), 404);
  });
});

describe("a Responses call naming a conversation the gateway keeps", () => {
  test("gives the model the earlier turns, and adds its own input and output to the conversation", async () => {
    const conversation = await client.conversations.create({
      items: [
        { type: "message", role: "user", content: "my name is Ada" },
        { type: "message", role: "assistant", content: "hello Ada" },
      ],
    });
    const first = await client.responses.create({ model: MODEL, conversation: conversation.id, input: "one two" });
    expect(first.output_text).toBe("echo: one two");
    expect(first.conversation).toEqual({ id: conversation.id });
    expect(turnsSent()).toEqual([
      ["user", "my name is Ada"],
      ["assistant", "hello Ada"],
      ["user", "one two"],
    ]);
    expect(await itemsOf(client, conversation.id)).toEqual([
      ["user", "my name is Ada"],
      ["assistant", "hello Ada"],
      ["user", "one two"],
      ["assistant", "echo: one two"],
    ]);

    // At once, with no wait: the turn is in the conversation before the reply ends.
    const second = await client.responses.create({ model: MODEL, conversation: { id: conversation.id }, input: "three" });
    expect(second.output_text).toBe("echo: three");
    expect(turnsSent().at(-2)).toEqual(["assistant", "echo: one two"]);
    expect(turnsSent().at(-1)).toEqual(["user", "three"]);
    expect((await itemsOf(client, conversation.id)).slice(4)).toEqual([
      ["user", "three"],
      ["assistant", "echo: three"],
    ]);
  });

  test("a streamed turn is added once its stream has ended", async () => {
    const { id } = await client.conversations.create({});
    const stream = client.responses.stream({ model: MODEL, conversation: id, input: "streamed turn" });
    const created: string[] = [];
    for await (const event of stream) if (event.type === "response.created") created.push(event.response.conversation?.id ?? "none");
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("echo: streamed turn");
    expect(created).toEqual([id]);
    expect(final.conversation).toEqual({ id });
    expect(await itemsOf(client, id)).toEqual([
      ["user", "streamed turn"],
      ["assistant", "echo: streamed turn"],
    ]);
  });

  test("a tool loop: the call is kept in the conversation, only the tool's output is sent next", async () => {
    const { id } = await client.conversations.create({});
    const first = await client.responses.create({ model: MODEL, conversation: id, input: "what is the weather?", tools: [RESPONSES_WEATHER_TOOL] });
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call")!;
    const second = await client.responses.create({ model: MODEL, conversation: id, tools: [RESPONSES_WEATHER_TOOL], input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }] });
    expect(second.output_text).toBe("tool said: sunny");
    expect(turnsSent()).toEqual([
      ["user", "what is the weather?"],
      ["assistant", "tool_use"],
      ["user", "tool_result"],
    ]);
    expect(await itemsOf(client, id)).toEqual([["user", "what is the weather?"], ["function_call"], ["function_call_output"], ["assistant", "tool said: sunny"]]);
  });

  test("background: the turn is added once the gateway has written the response", async () => {
    const { id } = await client.conversations.create({});
    let response = await client.responses.create({ model: MODEL, conversation: id, input: "in the background", background: true });
    while (response.status === "queued" || response.status === "in_progress") response = await client.responses.retrieve(response.id);
    expect(response.output_text).toBe("echo: in the background");
    expect(await itemsOf(client, id)).toEqual([
      ["user", "in the background"],
      ["assistant", "echo: in the background"],
    ]);
  });

  test("with previous_response_id too is a 400; an unknown conversation of the gateway's is a 404", async () => {
    const { id } = await client.conversations.create({});
    const first = await client.responses.create({ model: MODEL, input: "first" });
    await expectGatewayError(await postJson(`${gw.url}/v1/responses`, { model: MODEL, conversation: id, previous_response_id: first.id, input: "both" }), 400, { param: "conversation" });
    await expectGatewayError(await postJson(`${gw.url}/v1/responses`, { model: MODEL, conversation: "conv_11111111111111111111111111111111", input: "lost" }), 404);
    expect(await itemsOf(client, id)).toEqual([]);
  });

  test("a conversation is seen and continued only with the virtual key that created it", async () => {
    const keyNamed = async (name: string) => {
      const response = await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name } });
      return ((await response.json()) as { virtual_key: { value: string } }).virtual_key.value;
    };
    const [alice, bob] = [clientOf(gw.url, await keyNamed("conversations-alice")), clientOf(gw.url, await keyNamed("conversations-bob"))];
    const { id } = await alice.conversations.create({ items: [{ type: "message", role: "user", content: "alice's secret" }] });
    expect(await bob.conversations.retrieve(id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await client.conversations.items.list(id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await bob.responses.create({ model: MODEL, conversation: id, input: "tell me" }).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await bob.conversations.delete(id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await itemsOf(alice, id)).toEqual([["user", "alice's secret"]]);
  });

  test("survives a restart of the gateway", async () => {
    const own = await startGateway({ providers: { anthropic: anthropicProvider() } });
    const { id } = await clientOf(own.url).conversations.create({});
    await clientOf(own.url).responses.create({ model: MODEL, conversation: id, input: "before the restart" });
    await own.stop();
    const restarted = await own.restart();
    try {
      const after = clientOf(restarted.url);
      await after.responses.create({ model: MODEL, conversation: id, input: "after it" });
      expect(turnsSent()).toEqual([
        ["user", "before the restart"],
        ["assistant", "echo: before the restart"],
        ["user", "after it"],
      ]);
    } finally {
      await restarted.close();
    }
  });
});

describe("beside OpenAI, which keeps conversations of its own", () => {
  let withOpenAI: TestGateway;
  beforeAll(async () => {
    withOpenAI = await startGateway({ providers: { anthropic: anthropicProvider(), openai: { keys: [{ id: "oa", value: "sk-openai-upstream-0001" }], network_config: { base_url: openai.baseUrl } } } });
  });
  afterAll(() => withOpenAI.close());

  test("x-gw-provider: gateway creates one the gateway keeps, which OpenAI's models and others share", async () => {
    const kept = clientOf(withOpenAI.url, "unused", { "x-gw-provider": "gateway" });
    const { id } = await kept.conversations.create({});
    expect(id).toMatch(/^conv_[0-9a-f]{32}$/);
    expect(openai.conversations.size).toBe(0);

    const plain = clientOf(withOpenAI.url);
    const first = await plain.responses.create({ model: "openai/gpt-4o-mini", conversation: id, input: "asked of OpenAI" });
    expect(first.conversation).toEqual({ id });
    const sent = openai.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent.conversation).toBeUndefined();
    expect(sent.input).toEqual([{ role: "user", content: "asked of OpenAI" }]);

    await plain.responses.stream({ model: "openai/gpt-4o-mini", conversation: id, input: "streamed to OpenAI" }).finalResponse();
    await plain.responses.create({ model: MODEL, conversation: id, input: "then Claude" });
    expect(turnsSent()).toEqual([
      ["user", "asked of OpenAI"],
      ["assistant", "echo: asked of OpenAI"],
      ["user", "streamed to OpenAI"],
      ["assistant", "echo: streamed to OpenAI"],
      ["user", "then Claude"],
    ]);
    expect((await itemsOf(plain, id)).length).toBe(6);
  });

  test("a background call to OpenAI in a conversation the gateway keeps is run by the gateway, so its turn is added too", async () => {
    const { id } = await clientOf(withOpenAI.url, "unused", { "x-gw-provider": "gateway" }).conversations.create({});
    const plain = clientOf(withOpenAI.url);
    let response = await plain.responses.create({ model: "openai/gpt-4o-mini", conversation: id, input: "later, please", background: true });
    expect(response).toMatchObject({ status: "queued", background: true });
    const queuedId = response.id;
    while (response.status === "queued" || response.status === "in_progress") response = await plain.responses.retrieve(response.id);
    expect(response).toMatchObject({ id: queuedId, status: "completed", background: true, output_text: "echo: later, please" });
    // OpenAI answered the gateway's run in the foreground: the gateway, not OpenAI, kept it going.
    expect((openai.requests.at(-1)!.body as Record<string, unknown>).background).toBe(false);
    expect(await itemsOf(plain, id)).toEqual([
      ["user", "later, please"],
      ["assistant", "echo: later, please"],
    ]);
  });

  test("without it, a conversation is OpenAI's, and naming it in a call to another provider is a 400 that says so", async () => {
    const plain = clientOf(withOpenAI.url);
    const { id } = await plain.conversations.create({});
    expect(openai.conversations.has(id)).toBe(true);
    const refused = await postJson(`${withOpenAI.url}/v1/responses`, { model: MODEL, conversation: id, input: "hi" });
    const error = await expectGatewayError(refused, 400, { param: "conversation" });
    expect(error.error.message).toContain("x-gw-provider: gateway");
  });
});
