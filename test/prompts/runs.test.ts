import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { eventually } from "../support/eventually";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { createVirtualKey, openAIProvider } from "../governance/support";

let upstream: MockOpenAI;
let gw: TestGateway;
let vk: string;

/** The prompt fields a run sends beside the chat parameters the SDK knows. */
type PromptFields = { variables?: Record<string, unknown>; label?: string; version?: number };

beforeAll(async () => {
  upstream = startMockOpenAI();
  gw = await startGateway({ enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } });
  vk = (await createVirtualKey(gw, { name: "prompt runner" })).value;
  const create = (body: Record<string, unknown>) => gw.admin("/api/prompts", { method: "POST", json: body });
  expect((await create({ name: "house-style", messages: [{ role: "system", content: "Write for {{audience}}." }] })).status).toBe(201);
  expect(
    (
      await create({
        name: "support-reply",
        messages: [{ include: { name: "house-style" } }, { role: "system", content: "You answer for {{company}}." }, { role: "user", content: [{ type: "text", text: "{{question}} ({{count}} times)" }] }],
        variables: [
          { name: "company", default: "Acme" },
          { name: "count", type: "number" },
          { name: "audience", default: "engineers" },
        ],
        model: "openai/gpt-4o-mini",
        parameters: { temperature: 0.2, max_tokens: 50 },
      })
    ).status,
  ).toBe(201);
  const v2 = await gw.admin("/api/prompts/support-reply/versions", { method: "POST", json: { messages: [{ role: "user", content: "v2: {{question}}" }], model: "openai/gpt-4o-mini" } });
  expect(v2.status).toBe(201);
  expect((await gw.admin("/api/prompts/support-reply/labels/production", { method: "PUT", json: { version: 1 } })).status).toBe(200);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const client = () => new OpenAI({ baseURL: `${gw.url}/v1/prompts/support-reply`, apiKey: vk, maxRetries: 0 });
const lastUpstreamBody = () => upstream.requests.at(-1)!.body;
const run = (name: string, body: Record<string, unknown>) => postJson(`${gw.url}/v1/prompts/${name}/chat/completions`, body, { "x-gw-vk": vk });

interface LogRow {
  id: string;
  status: string;
  metadata: Record<string, string>;
}
const loggedRuns = (query: string) =>
  eventually(
    async () => ((await (await gw.admin(`/api/logs?${query}`)).json()) as { logs: LogRow[] }).logs,
    (logs) => logs.length > 0 && logs.every((row) => row.status !== "processing"),
  );

describe("running a prompt", () => {
  test("the openai SDK runs the production version with its variables: rendered, with the version's parameters, logged with its version", async () => {
    const reply = await client().chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [],
      label: "production",
      variables: { question: "Where is my order?", count: 2 },
    } as ChatCompletionCreateParamsNonStreaming & PromptFields);
    expect(reply.choices[0]!.message.content).toBe("echo: Where is my order? (2 times)");

    const sent = lastUpstreamBody();
    expect(sent.messages).toEqual([
      { role: "system", content: "Write for engineers." },
      { role: "system", content: "You answer for Acme." },
      { role: "user", content: [{ type: "text", text: "Where is my order? (2 times)" }] },
    ]);
    expect(sent).toMatchObject({ model: "gpt-4o-mini", temperature: 0.2, max_tokens: 50 });
    // The prompt's fields and the log's metadata are the gateway's, never the provider's.
    for (const field of ["variables", "label", "version", "metadata"]) expect(sent).not.toHaveProperty(field);

    const [row] = await loggedRuns("metadata_prompt=support-reply&metadata_prompt_label=production");
    expect(row!.metadata).toMatchObject({ prompt: "support-reply", prompt_version: "1", prompt_label: "production" });
  });

  test("a run streams, and without label or version it takes the newest version", async () => {
    const stream = await client().chat.completions.create({ model: "openai/gpt-4o-mini", messages: [], stream: true, variables: { question: "stream this" } } as ChatCompletionCreateParamsStreaming & PromptFields);
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: v2: stream this");
    const [row] = await loggedRuns("metadata_prompt=support-reply&metadata_prompt_version=2");
    expect(row!.metadata).toMatchObject({ prompt_version: "2", prompt_label: "latest" });
  });

  test("a run's parameters override the version's, and its messages follow the prompt's", async () => {
    const response = await run("support-reply", { version: 1, variables: { question: "hi", count: 1, company: "Globex" }, temperature: 0.9, messages: [{ role: "user", content: "and one more thing" }] });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe("echo: and one more thing");
    const sent = lastUpstreamBody();
    expect(sent).toMatchObject({ temperature: 0.9, max_tokens: 50 });
    expect((sent.messages as unknown[]).slice(1)).toEqual([
      { role: "system", content: "You answer for Globex." },
      { role: "user", content: [{ type: "text", text: "hi (1 times)" }] },
      { role: "user", content: "and one more thing" },
    ]);
  });

  test("the anthropic SDK runs a prompt on the Anthropic mount: its system messages become `system`, logged with its version", async () => {
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: vk, maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "anthropic-run" } });
    const message = await anthropic.messages.create(
      { model: "openai/gpt-4o-mini", max_tokens: 64, messages: [], label: "production", variables: { question: "Anthropic asks", count: 3 } } as Anthropic.MessageCreateParamsNonStreaming & PromptFields,
      { path: "/v1/prompts/support-reply/messages" },
    );
    expect(message.content[0]).toMatchObject({ type: "text", text: "echo: Anthropic asks (3 times)" });
    const sent = lastUpstreamBody();
    expect((sent.messages as Array<{ role: string }>).map((turn) => turn.role)).toEqual(["system", "user"]);
    expect(JSON.stringify(sent.messages)).toContain("Write for engineers.");
    expect(JSON.stringify(sent.messages)).toContain("You answer for Acme.");
    expect(sent).toMatchObject({ temperature: 0.2 });
    // The caller's own metadata stays beside the prompt's.
    const [row] = await loggedRuns("metadata_case=anthropic-run");
    expect(row!.metadata).toEqual({ case: "anthropic-run", prompt: "support-reply", prompt_version: "1", prompt_label: "production" });

    // The Messages API needs max_tokens: from the run or the version.
    const withoutMaxTokens = await postJson(`${gw.url}/anthropic/v1/prompts/house-style/messages`, { model: "openai/gpt-4o-mini", variables: { audience: "cooks" } }, { "x-api-key": vk });
    await expectGatewayError(withoutMaxTokens, 400, { param: "max_tokens" });
  });

  test("the openai SDK runs a prompt on the Responses API: its messages become input items, its max_tokens max_output_tokens", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1/prompts/support-reply`, apiKey: vk, maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "responses-run" } });
    const response = await client.responses.create({ model: "openai/gpt-4o-mini", label: "production", variables: { question: "Responses asks", count: 4 } } as OpenAI.Responses.ResponseCreateParamsNonStreaming & PromptFields);
    expect(response.output_text).toBe("echo: Responses asks (4 times)");
    const sent = lastUpstreamBody();
    expect(sent).toMatchObject({ temperature: 0.2, max_output_tokens: 50 });
    expect(sent).not.toHaveProperty("max_tokens");
    expect((sent.input as unknown[]).at(-1)).toEqual({ role: "user", content: [{ type: "input_text", text: "Responses asks (4 times)" }] });
    const [row] = await loggedRuns("metadata_case=responses-run");
    expect(row!.metadata).toMatchObject({ prompt: "support-reply", prompt_version: "1", prompt_label: "production" });
  });

  test("a run answers to the virtual key as any chat does", async () => {
    const response = await postJson(`${gw.url}/v1/prompts/support-reply/chat/completions`, { variables: { question: "x" } });
    await expectGatewayError(response, 401, { errorType: "caller_virtual_key_required" });
  });
});

describe("a run's mistakes are 400s naming the field, and reach no provider", () => {
  test.each([
    ["a missing variable", "support-reply", { label: "production", variables: { count: 1 } }, "variables.question"],
    ["a variable of the wrong type", "support-reply", { label: "production", variables: { question: "q", count: "two" } }, "variables.count"],
    ["an unknown label", "support-reply", { label: "staging", variables: { question: "q" } }, "label"],
    ["an unknown version", "support-reply", { version: 7, variables: { question: "q" } }, "version"],
    ["a version past 2^53", "support-reply", { version: 2 ** 53 + 2, variables: { question: "q" } }, "version"],
    ["both a label and a version", "support-reply", { label: "production", version: 1, variables: { question: "q" } }, "version"],
    ["an unknown prompt", "no-such-prompt", { variables: {} }, "name"],
    ["a prompt without a model, run without one", "house-style", { variables: { audience: "cooks" } }, "model"],
  ])("%s", async (_, name, body, param) => {
    const before = upstream.requests.length;
    await expectGatewayError(await run(name, body), 400, { param });
    expect(upstream.requests.length).toBe(before);
  });
});

describe("the `prompt` field on the ordinary routes", () => {
  type WithPrompt = { prompt: { name: string } & PromptFields };
  const openai = (metadataCase: string) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: vk, maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": metadataCase } });

  test("the openai SDK sends it as an extra body field on /v1/chat/completions: rendered, stripped before the provider, logged with its version", async () => {
    const reply = await openai("field-chat").chat.completions.create({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content: "and then?" }],
      prompt: { name: "support-reply", label: "production", variables: { question: "Where is it?", count: 1 } },
    } as ChatCompletionCreateParamsNonStreaming & WithPrompt);
    expect(reply.choices[0]!.message.content).toBe("echo: and then?");
    const sent = lastUpstreamBody();
    expect(sent).not.toHaveProperty("prompt");
    expect(sent).toMatchObject({ model: "gpt-4o-mini", temperature: 0.2, max_tokens: 50 });
    expect((sent.messages as unknown[]).slice(1)).toEqual([
      { role: "system", content: "You answer for Acme." },
      { role: "user", content: [{ type: "text", text: "Where is it? (1 times)" }] },
      { role: "user", content: "and then?" },
    ]);
    const [row] = await loggedRuns("metadata_case=field-chat");
    expect(row!.metadata).toEqual({ case: "field-chat", prompt: "support-reply", prompt_version: "1", prompt_label: "production" });
  });

  test("on /v1/responses, streamed; OpenAI's own stored-prompt reference (an `id`) goes to the provider as sent", async () => {
    const stream = await openai("field-responses").responses.create({ model: "openai/gpt-4o-mini", stream: true, prompt: { name: "support-reply", version: 2, variables: { question: "streamed" } } } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming);
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    expect(text).toBe("echo: v2: streamed");
    expect(lastUpstreamBody()).not.toHaveProperty("prompt");
    const [row] = await loggedRuns("metadata_case=field-responses");
    expect(row!.metadata).toMatchObject({ prompt: "support-reply", prompt_version: "2" });
    expect(row!.metadata).not.toHaveProperty("prompt_label");

    await openai("field-openai-prompt").responses.create({ model: "openai/gpt-4o-mini", input: "hi", prompt: { id: "pmpt_123", variables: { a: "b" } } });
    expect(lastUpstreamBody().prompt).toEqual({ id: "pmpt_123", variables: { a: "b" } });
  });

  test("the anthropic SDK sends it on /anthropic/v1/messages: the prompt's system messages become `system`", async () => {
    const anthropic = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: vk, maxRetries: 0, defaultHeaders: { "x-gw-metadata-case": "field-messages" } });
    const message = await anthropic.messages.create({
      model: "openai/gpt-4o-mini",
      max_tokens: 64,
      messages: [],
      prompt: { name: "support-reply", label: "production", variables: { question: "From Claude's SDK", count: 5 } },
    } as Anthropic.MessageCreateParamsNonStreaming & WithPrompt);
    expect(message.content[0]).toMatchObject({ type: "text", text: "echo: From Claude's SDK (5 times)" });
    expect(JSON.stringify(lastUpstreamBody().messages)).toContain("You answer for Acme.");
    const [row] = await loggedRuns("metadata_case=field-messages");
    expect(row!.metadata).toMatchObject({ prompt: "support-reply", prompt_version: "1", prompt_label: "production" });
  });

  const chat = (prompt: unknown) => postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [], prompt }, { "x-gw-vk": vk });
  test.each([
    ["a missing variable", { name: "support-reply", label: "production", variables: { count: 1 } }, "prompt.variables.question"],
    ["a variable of the wrong type", { name: "support-reply", label: "production", variables: { question: "q", count: "two" } }, "prompt.variables.count"],
    ["an unknown label", { name: "support-reply", label: "staging", variables: { question: "q" } }, "prompt.label"],
    ["an unknown version", { name: "support-reply", version: 7 }, "prompt.version"],
    ["both a label and a version", { name: "support-reply", label: "production", version: 1 }, "prompt.version"],
    ["an unknown prompt", { name: "no-such-prompt" }, "prompt.name"],
    ["no name", { label: "production" }, "prompt.name"],
    ["a field it does not have", { name: "support-reply", temperature: 1 }, "prompt.temperature"],
    ["not an object", "support-reply", "prompt"],
  ])("%s", async (_, prompt, param) => {
    const before = upstream.requests.length;
    await expectGatewayError(await chat(prompt), 400, { param });
    expect(upstream.requests.length).toBe(before);
  });
});

describe("rendering without running", () => {
  test("POST /api/prompts/{name}/render answers the chat body a run would send and its log metadata, and reaches no provider", async () => {
    const before = upstream.requests.length;
    const response = await gw.admin("/api/prompts/support-reply/render", { method: "POST", json: { label: "production", variables: { question: "Preview?", count: 2 }, temperature: 0.5 } });
    expect(response.status).toBe(200);
    const rendered = (await response.json()) as { body: { messages: unknown[] } & Record<string, unknown>; metadata: Record<string, string> };
    expect(rendered.body).toMatchObject({ model: "openai/gpt-4o-mini", temperature: 0.5, max_tokens: 50 });
    expect(rendered.body.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Preview? (2 times)" }] });
    expect(rendered.metadata).toEqual({ prompt: "support-reply", prompt_version: "1", prompt_label: "production" });
    await expectGatewayError(await gw.admin("/api/prompts/support-reply/render", { method: "POST", json: { label: "production", variables: { question: "q" } } }), 400, { param: "variables.count" });
    expect(upstream.requests.length).toBe(before);
  });
});

describe("a virtual key limited to given prompts", () => {
  test("runs those prompts, by route or by field; another prompt or a request without one is a 403 naming what it may run", async () => {
    const limited = await createVirtualKey(gw, { name: "support widget", allowed_prompts: ["support-reply"] });
    const headers = { "x-gw-vk": limited.value };
    const ok = await postJson(`${gw.url}/v1/prompts/support-reply/chat/completions`, { label: "production", variables: { question: "q", count: 1 } }, headers);
    expect(ok.status).toBe(200);
    const byField = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [], prompt: { name: "support-reply", version: 2, variables: { question: "q" } } }, headers);
    expect(byField.status).toBe(200);

    const before = upstream.requests.length;
    const other = await expectGatewayError(
      await postJson(`${gw.url}/v1/prompts/house-style/chat/completions`, { model: "openai/gpt-4o-mini", variables: { audience: "cooks" } }, headers),
      403,
      { param: "prompt", errorType: "policy_prompt_not_allowed" },
    );
    expect(other.error.message).toContain("'house-style'");
    expect(other.error.message).toContain("'support-reply'");
    // A plain chat claiming the prompt in its metadata is still a plain chat.
    const plain = await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "anything" }] }, { ...headers, "x-gw-metadata-prompt": "support-reply" });
    await expectGatewayError(plain, 403, { param: "prompt", errorType: "policy_prompt_not_allowed" });
    expect(upstream.requests.length).toBe(before);

    const key = (await (await gw.admin(`/api/governance/virtual-keys/${limited.id}`)).json()) as { virtual_key?: { allowed_prompts: string[] }; allowed_prompts?: string[] };
    expect((key.virtual_key ?? key).allowed_prompts).toEqual(["support-reply"]);
    // Emptied, the key makes any call again.
    expect((await gw.admin(`/api/governance/virtual-keys/${limited.id}`, { method: "PUT", json: { allowed_prompts: [] } })).status).toBe(200);
    expect((await postJson(`${gw.url}/v1/chat/completions`, { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "anything" }] }, headers)).status).toBe(200);
  });
});

describe("a prompt's runs by version", () => {
  interface VersionUsage {
    version: number;
    requests: number;
    errors: number;
    total_tokens: number;
    total_cost: number;
    average_latency_ms: number;
  }
  const usage = async (prompt: string) => ((await (await gw.admin(`/api/logs/prompt-versions?prompt=${prompt}`)).json()) as { versions: VersionUsage[] }).versions;

  test("each version's requests, errors and tokens, from the rows its runs left, newest version first", async () => {
    const rows = await loggedRuns("metadata_prompt=support-reply&limit=100");
    const versions = await usage("support-reply");
    expect(versions.map((row) => row.version)).toEqual([2, 1]);
    for (const row of versions) {
      const ofVersion = rows.filter((log) => log.metadata.prompt_version === String(row.version));
      expect(row.requests).toBe(ofVersion.length);
      expect(row.errors).toBe(ofVersion.filter((log) => log.status === "error").length);
      expect(row.total_tokens).toBeGreaterThan(0);
    }
    // The run the limited key was refused is an error of that version.
    const refused = await eventually(() => usage("house-style"), (versions) => versions.length > 0);
    expect(refused).toEqual([expect.objectContaining({ version: 1, requests: 1, errors: 1 })]);
    await expectGatewayError(await gw.admin("/api/logs/prompt-versions"), 400, { param: "prompt" });
  });
});
