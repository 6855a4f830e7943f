import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

/**
 * OpenAI keeps the responses it writes: the SDK reads them back, lists their input, deletes them,
 * and polls and cancels those created with `background: true`. Through the gateway these calls
 * reach the provider that keeps the response, with the gateway's keys.
 */

let openai: MockOpenAI;
let azureUpstream: MockOpenAI;
let gw: TestGateway;
let client: OpenAI;

const clientOf = (gateway: TestGateway, headers: Record<string, string> = {}) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: headers });
const openAIProvider = () => ({ keys: [{ id: "oa", value: "sk-openai-upstream-0001" }], network_config: { base_url: openai.baseUrl } });
const azureProvider = () => ({ keys: [{ id: "az", value: "azure-api-key-0001", azure_key_config: { endpoint: azureUpstream.url, api_version: "2024-10-21" } }] });

beforeAll(async () => {
  openai = startMockOpenAI();
  azureUpstream = startMockOpenAI();
  gw = await startGateway({
    providers: { openai: openAIProvider(), azure: azureProvider() },
  });
  client = clientOf(gw);
});
afterAll(async () => {
  await gw.close();
  openai.stop();
  azureUpstream.stop();
});

const lastRequestTo = (upstream: MockOpenAI) => upstream.requests.at(-1)!;

describe("a response OpenAI keeps", () => {
  test("is read back, its input listed, and deleted, each with the gateway's key", async () => {
    const created = await client.responses.create({ model: "openai/gpt-4o-mini", input: "remember me" });
    const retrieved = await client.responses.retrieve(created.id);
    expect(retrieved.id).toBe(created.id);
    expect(retrieved.output_text).toBe("echo: remember me");
    expect(lastRequestTo(openai).headers.get("authorization")).toBe("Bearer sk-openai-upstream-0001");

    const items = await client.responses.inputItems.list(created.id);
    expect(items.data.map((item) => (item as { role?: string }).role)).toEqual(["user"]);

    await client.responses.delete(created.id);
    expect(openai.kept.has(created.id)).toBe(false);
    expect(await client.responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("background: the SDK polls until it completes", async () => {
    let response = await client.responses.create({ model: "openai/gpt-4o-mini", input: "take your time", background: true });
    const seen = [response.status];
    while (response.status === "queued" || response.status === "in_progress") {
      response = await client.responses.retrieve(response.id);
      seen.push(response.status);
    }
    expect(seen).toEqual(["queued", "in_progress", "completed"]);
    expect(response.output_text).toBe("echo: take your time");
  });

  test("background: its usage is billed once, on the read that finds it finished, at its model's price", async () => {
    const tagged = (name: string) => ({ headers: { "x-gw-metadata-case": name } });
    const created = await client.responses.create({ model: "openai/gpt-4o-mini", input: "bill me later please", background: true }, tagged("bg-create"));
    expect(created.usage).toBeNull();
    const polls = ["bg-poll-1", "bg-poll-2", "bg-poll-3"];
    for (const name of polls) await client.responses.retrieve(created.id, {}, tagged(name));
    const [create, queued, finished, again] = await Promise.all(["bg-create", ...polls].map((name) => loggedRequest(gw, name)));
    expect(create).toMatchObject({ object: "response", input_tokens: 0, output_tokens: 0 });
    expect(queued).toMatchObject({ object: "response.retrieve", input_tokens: 0, output_tokens: 0 });
    expect(finished).toMatchObject({ object: "response.retrieve", model: "gpt-4o-mini", input_tokens: 4, output_tokens: 5 });
    expect(finished!.cost).toBeGreaterThan(0);
    expect(again).toMatchObject({ input_tokens: 0, output_tokens: 0 });
  });

  test("background: a restart of the gateway in between still bills it on the read that finds it finished", async () => {
    const own = await startGateway({ providers: { openai: openAIProvider() } });
    const created = await clientOf(own).responses.create({ model: "openai/gpt-4o-mini", input: "across a restart", background: true });
    await own.stop();
    const restarted = await own.restart();
    try {
      const after = clientOf(restarted);
      await after.responses.retrieve(created.id);
      const finished = await after.responses.retrieve(created.id, {}, { headers: { "x-gw-metadata-case": "after-restart" } });
      expect(finished.status).toBe("completed");
      expect(await loggedRequest(restarted, "after-restart")).toMatchObject({ model: "gpt-4o-mini", input_tokens: 3, output_tokens: 4 });
    } finally {
      await restarted.close();
    }
  });

  test("a response read back is not billed again", async () => {
    const created = await client.responses.create({ model: "openai/gpt-4o-mini", input: "once is enough" });
    await client.responses.retrieve(created.id, {}, { headers: { "x-gw-metadata-case": "plain-read" } });
    expect(await loggedRequest(gw, "plain-read")).toMatchObject({ object: "response.retrieve", input_tokens: 0, output_tokens: 0, cost: null });
  });

  test("background: cancel stops it, and the response says cancelled", async () => {
    const started = await client.responses.create({ model: "openai/gpt-4o-mini", input: "never mind", background: true });
    const cancelled = await client.responses.cancel(started.id);
    expect(cancelled.status).toBe("cancelled");
    expect((await client.responses.retrieve(started.id)).status).toBe("cancelled");
  });

  test("cancelling a response that was not in the background is the provider's 400", async () => {
    const created = await client.responses.create({ model: "openai/gpt-4o-mini", input: "done already" });
    await expectGatewayError(await fetch(`${gw.url}/v1/responses/${created.id}/cancel`, { method: "POST" }), 400);
  });

  test("an id the provider does not know is a 404", async () => {
    expect(await client.responses.retrieve("resp_0123456789abcdef0123456789abcdef0123456789abcdef").catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("with several providers keeping responses, x-gw-provider names the one asked", async () => {
    const azureClient = clientOf(gw, { "x-gw-provider": "azure" });
    const created = await azureClient.responses.create({ model: "azure/gpt-4o", input: "on azure" });
    expect((await azureClient.responses.retrieve(created.id)).output_text).toBe("echo: on azure");
    expect(lastRequestTo(azureUpstream).path).toBe(`/openai/v1/responses/${created.id}`);
    expect(lastRequestTo(azureUpstream).headers.get("api-key")).toBe("azure-api-key-0001");
    // Without the header, OpenAI's own API is asked, which does not have it.
    expect(await client.responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("the only provider keeping responses is asked without being named", async () => {
    const azureOnly = await startGateway({ providers: { azure: azureProvider() } });
    try {
      const azureClient = clientOf(azureOnly);
      const created = await azureClient.responses.create({ model: "azure/gpt-4o", input: "the only one" });
      expect((await azureClient.responses.retrieve(created.id)).output_text).toBe("echo: the only one");
    } finally {
      await azureOnly.close();
    }
  });
});

describe("a conversation OpenAI keeps (the Agents SDK's OpenAIConversationsSession)", () => {
  test("is created, read, updated and deleted, and its items listed, added, read and removed", async () => {
    const conversation = await client.conversations.create({ metadata: { topic: "otters" }, items: [{ type: "message", role: "user", content: "hello" }] });
    expect(conversation.id).toStartWith("conv_");
    expect(lastRequestTo(openai).headers.get("authorization")).toBe("Bearer sk-openai-upstream-0001");
    expect((await client.conversations.retrieve(conversation.id)).metadata).toEqual({ topic: "otters" });
    expect((await client.conversations.update(conversation.id, { metadata: { topic: "seals" } })).metadata).toEqual({ topic: "seals" });

    const added = await client.conversations.items.create(conversation.id, { items: [{ type: "message", role: "assistant", content: "hi" }] });
    const listed = await client.conversations.items.list(conversation.id);
    expect(listed.data.map((item) => (item as { role?: string }).role)).toEqual(["user", "assistant"]);
    const itemId = added.data[0]!.id!;
    expect((await client.conversations.items.retrieve(itemId, { conversation_id: conversation.id })).id).toBe(itemId);
    await client.conversations.items.delete(itemId, { conversation_id: conversation.id });
    expect((await client.conversations.items.list(conversation.id)).data).toHaveLength(1);

    await client.conversations.delete(conversation.id);
    expect(openai.conversations.has(conversation.id)).toBe(false);
    expect(await client.conversations.retrieve(conversation.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("each call is logged as what it did, and none is billed", async () => {
    await client.conversations.create({}, { headers: { "x-gw-metadata-case": "conversation-create" } });
    expect(await loggedRequest(gw, "conversation-create")).toMatchObject({ object: "conversation.create", provider: "openai", status: "success", cost: null });
  });
});

describe("a container OpenAI keeps (code interpreter's sandbox) and its files", () => {
  test("is created, listed, read and deleted; files go in as uploads or by file id, come out byte for byte, and are removed", async () => {
    const container = await client.containers.create({ name: "analysis" });
    expect(container).toMatchObject({ object: "container", name: "analysis" });
    expect(lastRequestTo(openai).headers.get("authorization")).toBe("Bearer sk-openai-upstream-0001");
    expect((await client.containers.list()).data.map((listed) => listed.id)).toContain(container.id);
    expect((await client.containers.retrieve(container.id)).name).toBe("analysis");

    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x80, 0x0d, 0x0a]);
    const uploaded = await client.containers.files.create(container.id, { file: await toFile(bytes, "chart.png") });
    expect(uploaded).toMatchObject({ container_id: container.id, bytes: bytes.length, path: "/mnt/data/chart.png" });
    const byId = await client.containers.files.create(container.id, { file_id: "file-abc123" });
    expect(byId.path).toBe("/mnt/data/file-abc123");
    expect((await client.containers.files.list(container.id)).data.map((file) => file.id)).toEqual([uploaded.id, byId.id]);
    expect((await client.containers.files.retrieve(uploaded.id, { container_id: container.id })).bytes).toBe(bytes.length);

    const content = await client.containers.files.content.retrieve(uploaded.id, { container_id: container.id });
    expect(content.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(bytes);

    await client.containers.files.delete(byId.id, { container_id: container.id });
    expect((await client.containers.files.list(container.id)).data).toHaveLength(1);
    await client.containers.delete(container.id);
    expect(openai.containers.has(container.id)).toBe(false);
    expect(await client.containers.retrieve(container.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("reaches Azure's when the call names it, and is logged as what it did", async () => {
    const azure = clientOf(gw, { "x-gw-provider": "azure", "x-gw-metadata-case": "container-create" });
    const container = await azure.containers.create({ name: "on-azure" });
    expect(azureUpstream.containers.has(container.id)).toBe(true);
    expect(lastRequestTo(azureUpstream).path).toBe("/openai/v1/containers");
    expect(lastRequestTo(azureUpstream).headers.get("api-key")).toBe("azure-api-key-0001");
    expect(await loggedRequest(gw, "container-create")).toMatchObject({ object: "container.create", provider: "azure", status: "success" });
  });

  test("a create whose body is not a JSON object is a 400 naming the body; the provider's own refusal comes back as it said", async () => {
    const notObject = await fetch(`${gw.url}/v1/containers`, { method: "POST", headers: { "content-type": "application/json" }, body: "[1, 2]" });
    await expectGatewayError(notObject, 400, { param: "body" });
    const refused = await client.containers.create({} as OpenAI.Containers.ContainerCreateParams).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("name");
  });
});

describe("chat completions OpenAI stores (store: true)", () => {
  test("are listed, read, tagged and deleted, and their messages listed", async () => {
    const created = await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "keep this one" }], store: true, metadata: { purpose: "distill" } });
    expect((await client.chat.completions.list()).data.map((completion) => completion.id)).toContain(created.id);
    const retrieved = await client.chat.completions.retrieve(created.id);
    expect(retrieved.choices[0]!.message.content).toBe("echo: keep this one");
    expect(lastRequestTo(openai).headers.get("authorization")).toBe("Bearer sk-openai-upstream-0001");
    expect((await client.chat.completions.messages.list(created.id)).data.map((message) => message.content)).toEqual(["keep this one"]);
    expect(await client.chat.completions.update(created.id, { metadata: { purpose: "eval" } })).toMatchObject({ metadata: { purpose: "eval" } });
    await client.chat.completions.delete(created.id);
    expect(openai.storedCompletions.has(created.id)).toBe(false);
    expect(await client.chat.completions.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("a provider whose keys belong to different projects", () => {
  test("a response, streamed or not, is read, continued and deleted with the key that created it, also after a restart", async () => {
    const projects = startMockOpenAI();
    projects.keysAreProjects = true;
    const keys = [
      { id: "project-a", value: "sk-project-a-0001" },
      { id: "project-b", value: "sk-project-b-0001" },
    ];
    let gateway = await startGateway({ providers: { openai: { keys, network_config: { base_url: projects.baseUrl } } } });
    try {
      // Each create is pinned to a key, half of them streamed (a stream names its response in its first event); nothing after it is.
      const created = [];
      for (const [index, key] of [...keys, ...keys, ...keys, ...keys].entries()) {
        const pinned = clientOf(gateway, { "x-gw-api-key-id": key.id });
        const request = { model: "openai/gpt-4o-mini", input: `made with ${key.id}` };
        created.push(index % 4 < 2 ? await pinned.responses.create(request) : await pinned.responses.stream(request).finalResponse());
      }
      gateway = await gateway.restart();
      const sdk = clientOf(gateway);
      for (const response of created) {
        expect((await sdk.responses.retrieve(response.id)).output_text).toBe(response.output_text);
        expect((await sdk.responses.create({ model: "openai/gpt-4o-mini", previous_response_id: response.id, input: "and then?" })).output_text).toBe("echo: and then?");
        await sdk.responses.delete(response.id);
      }
      expect(created.every((response) => !projects.kept.has(response.id))).toBe(true);
    } finally {
      await gateway.close();
      projects.stop();
    }
  });
});
