import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { startGateway, type TestGateway } from "../support/gateway";

const INPUTS = 512;
const DIMENSIONS = 1536;
const vector = (index: number) => Array.from({ length: DIMENSIONS }, (_, dimension) => ((index * 31 + dimension) % 997) / 997 - 0.5);
const data = Array.from({ length: INPUTS }, (_, index) => ({ object: "embedding", index, embedding: vector(index) }));

/** Two upstreams answering a 10 MB embeddings batch: usage last, as OpenAI writes it, or first. */
const replies = {
  "usage-last": JSON.stringify({ object: "list", data, model: "text-embedding-3-small", usage: { prompt_tokens: 4096, total_tokens: 4096 } }),
  "usage-first": JSON.stringify({ usage: { prompt_tokens: 2048, total_tokens: 2048 }, object: "list", data, model: "text-embedding-3-small" }),
};
const upstream = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request) => new Response(replies[new URL(request.url).pathname.split("/")[1] as keyof typeof replies], { headers: { "content-type": "application/json" } }),
});
const baseUrl = (name: keyof typeof replies) => `http://127.0.0.1:${upstream.port}/${name}/v1`;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({
    providers: {
      openai: { keys: [{ id: "k1", value: "sk-large", models: ["*"] }], network_config: { base_url: baseUrl("usage-last") } },
      "house-embedder": { custom_provider_config: { base_provider_type: "openai" }, keys: [{ id: "k2", value: "sk-large", models: ["*"] }], network_config: { base_url: baseUrl("usage-first") } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop(true);
});

const loggedTokens = async (provider: string) => {
  await gw.stop();
  gw = await gw.restart();
  const { logs } = (await (await gw.admin(`/api/logs?providers=${provider}`)).json()) as { logs: Array<{ input_tokens: number; total_tokens: number }> };
  return logs.map((log) => [log.input_tokens, log.total_tokens]);
};

describe("a large embeddings batch passes whole, and its usage is logged", () => {
  for (const [provider, tokens] of [["openai", 4096], ["house-embedder", 2048]] as const) {
    test(`${provider}: ${INPUTS} vectors of ${DIMENSIONS} floats, ${tokens} tokens`, async () => {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
      const reply = await client.embeddings.create({ model: `${provider}/text-embedding-3-small`, input: ["harbour", "lease"], encoding_format: "float" });
      expect(reply.data).toHaveLength(INPUTS);
      expect(reply.data[INPUTS - 1]!.embedding).toEqual(vector(INPUTS - 1));
      expect(reply.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
      expect(await loggedTokens(provider)).toEqual([[tokens, tokens]]);
    });
  }
});
