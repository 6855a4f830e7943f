import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic, { toFile } from "@anthropic-ai/sdk";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { loggedRequest } from "../support/logged-request";
import { type MockAnthropicBatches, startMockAnthropicBatches } from "../support/mock-anthropic-batches";
import { skillArchive } from "../support/mock-anthropic-skills";

/**
 * The Anthropic SDK's message batches and files, on the Anthropic mount: a batch created through
 * the messages wildcard is polled, listed, cancelled, deleted and its results read, all through the
 * gateway and with its keys; files go up, are listed, read and deleted.
 */

const UPSTREAM_KEY = "sk-ant-kept-0001";
let upstream: MockAnthropicBatches;
let gw: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  upstream = startMockAnthropicBatches(UPSTREAM_KEY);
  gw = await startGateway({ providers: { anthropic: { keys: [{ id: "ant", value: UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl } } } });
  client = new Anthropic({ baseURL: `${gw.url}/anthropic`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

const request = (customId: string, text: string) => ({ custom_id: customId, params: { model: "anthropic/claude-3-5-haiku-20241022", max_tokens: 32, messages: [{ role: "user" as const, content: text }] } });

describe("message batches Anthropic keeps", () => {
  test("a batch is polled until it ends, and its results are read through the gateway, not from the provider", async () => {
    const batch = await client.messages.batches.create({ requests: [request("a", "hello batch"), request("b", "please fail")] });
    expect((await client.messages.batches.retrieve(batch.id)).processing_status).toBe("in_progress");
    expect(upstream.requests.at(-1)!.headers.get("x-api-key")).toBe(UPSTREAM_KEY);

    upstream.endBatch(batch.id);
    const ended = await client.messages.batches.retrieve(batch.id);
    expect(ended.processing_status).toBe("ended");
    expect(ended.results_url).toBe(`${gw.url}/anthropic/v1/messages/batches/${batch.id}/results`);

    const results = [];
    for await (const result of await client.messages.batches.results(batch.id)) results.push(result);
    expect(results.map((result) => [result.custom_id, result.result.type])).toEqual([
      ["a", "succeeded"],
      ["b", "errored"],
    ]);
    const succeeded = results[0]!.result as Anthropic.Messages.Batches.MessageBatchSucceededResult;
    expect(succeeded.message.content[0]).toMatchObject({ type: "text", text: "echo: hello batch" });

    const listed = await client.messages.batches.list();
    expect(listed.data.find((entry) => entry.id === batch.id)?.results_url).toBe(ended.results_url);

    const viaFramework = await new Anthropic({ baseURL: `${gw.url}/pydanticai/anthropic`, apiKey: "unused", maxRetries: 0 }).messages.batches.retrieve(batch.id);
    expect(viaFramework.results_url).toBe(`${gw.url}/pydanticai/anthropic/v1/messages/batches/${batch.id}/results`);

    await client.messages.batches.delete(batch.id);
    expect(upstream.batches.has(batch.id)).toBe(false);
    expect(await client.messages.batches.retrieve(batch.id).catch((error: unknown) => error)).toBeInstanceOf(Anthropic.NotFoundError);
  });

  test("a batch still running is cancelled; deleting it first is the provider's 400, as it said", async () => {
    const batch = await client.messages.batches.create({ requests: [request("c", "slow")] });
    const refused = await client.messages.batches.delete(batch.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as Error).message).toContain("still processing");
    const cancelled = await client.messages.batches.cancel(batch.id, {}, { headers: { "x-gw-metadata-case": "batch-cancel" } });
    expect(cancelled.processing_status).toBe("canceling");
    expect(await loggedRequest(gw, "batch-cancel")).toMatchObject({ object: "message_batch.cancel", provider: "anthropic", status: "success", cost: null });
  });
});

describe("files Anthropic keeps (the files beta)", () => {
  test("a file is uploaded, listed, read and deleted, with the client's beta header passed on", async () => {
    const betas = ["files-api-2025-04-14"];
    const uploaded = await client.beta.files.upload({ file: await toFile(new TextEncoder().encode("quarterly numbers"), "numbers.txt", { type: "text/plain" }), betas });
    expect(uploaded).toMatchObject({ filename: "numbers.txt", size_bytes: 17 });
    expect(upstream.requests.at(-1)!.headers.get("anthropic-beta")).toContain("files-api-2025-04-14");
    expect((await client.beta.files.list({ betas })).data.map((file) => file.id)).toContain(uploaded.id);
    expect((await client.beta.files.retrieveMetadata(uploaded.id, { betas })).filename).toBe("numbers.txt");
    await client.beta.files.delete(uploaded.id, { betas });
    expect(upstream.files.has(uploaded.id)).toBe(false);
    expect(await client.beta.files.retrieveMetadata(uploaded.id, { betas }).catch((error: unknown) => error)).toBeInstanceOf(Anthropic.NotFoundError);
  });

  test("an upload that is not a form or JSON object is a 400 naming the body", async () => {
    await expectGatewayError(await fetch(`${gw.url}/anthropic/v1/files`, { method: "POST", headers: { "content-type": "application/json" }, body: "\"a file\"" }), 400, { param: "body" });
  });
});

describe("agent skills Anthropic keeps", () => {
  const skillFiles = async (description: string) => [
    await toFile(new TextEncoder().encode(`---\nname: invoice-reader\ndescription: ${description}\n---\nRead the invoice.`), "invoice-reader/SKILL.md"),
    await toFile(new Uint8Array([0, 1, 2, 255]), "invoice-reader/scripts/parse.bin"),
  ];

  test("a skill goes up as its folder, is versioned, listed, read and downloaded, and deleted version first", async () => {
    const skill = await client.beta.skills.create({ display_name: "Invoice reader", files: await skillFiles("reads invoices") });
    expect(skill).toMatchObject({ display_name: "Invoice reader", source: "custom" });
    expect(upstream.requests.at(-1)!.headers.get("x-api-key")).toBe(UPSTREAM_KEY);
    const first = upstream.skills.get(skill.id)!.versions.get(skill.latest_version_id)!;
    expect([...first.files.keys()].sort()).toEqual(["invoice-reader/SKILL.md", "invoice-reader/scripts/parse.bin"]);
    expect(first.files.get("invoice-reader/scripts/parse.bin")).toEqual(new Uint8Array([0, 1, 2, 255]));

    const second = await client.beta.skills.versions.create(skill.id, { files: await skillFiles("reads invoices, better") });
    expect(second).toMatchObject({ skill_id: skill.id, name: "invoice-reader", description: "reads invoices, better" });
    const versions = [];
    for await (const version of client.beta.skills.versions.list(skill.id)) versions.push(version.id);
    expect(versions.sort()).toEqual([skill.latest_version_id, second.id].sort());
    expect((await client.beta.skills.retrieve(skill.id)).latest_version_id).toBe(second.id);
    const archive = await client.beta.skills.versions.download(second.id, { skill_id: skill.id });
    expect(new Uint8Array(await archive.arrayBuffer())).toEqual(skillArchive(upstream.skills.get(skill.id)!.versions.get(second.id)!));

    const refused = await client.beta.skills.delete(skill.id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    for (const version of versions) await client.beta.skills.versions.delete(version, { skill_id: skill.id });
    await client.beta.skills.delete(skill.id);
    expect(upstream.skills.has(skill.id)).toBe(false);
  });

  test("a folder without its SKILL.md is the provider's 400, as it said", async () => {
    const refused = await client.beta.skills.create({ files: [await toFile(new TextEncoder().encode("no manifest"), "loose/README.md")] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).message).toContain("SKILL.md");
  });
});
