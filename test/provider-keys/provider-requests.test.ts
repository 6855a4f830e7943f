import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { toFile } from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { drawn, type MockMediaApis, spoken, startMockMediaApis } from "../support/mock-media-apis";
import { type MockOAuth, startMockOAuth } from "../support/mock-oauth";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

let media: MockMediaApis;
let openai: MockOpenAI;
let oauth: MockOAuth;
let gw: TestGateway;
let client: OpenAI;
const previousAuthority = process.env.AZURE_AUTHORITY_HOST;
/** OpenAI-compatible providers without the Responses API: a Responses call is translated to chat for them. */
const CHAT_ONLY = ["together", "sambanova", "deepinfra", "novita", "nvidia", "dashscope", "dashscope-cn", "github", "databricks"];

beforeAll(async () => {
  media = startMockMediaApis();
  openai = startMockOpenAI();
  oauth = startMockOAuth();
  oauth.clients.set("entra-app", "entra-secret-0001");
  process.env.AZURE_AUTHORITY_HOST = new URL(oauth.tokenUrl).origin;
  const hosted = (id: string) => ({ keys: [{ id, value: `${id}-secret` }], network_config: { base_url: openai.baseUrl } });
  gw = await startGateway({
    providers: {
      cloudflare: { keys: [{ id: "cf", value: media.keys.cloudflare, cloudflare_key_config: { account_id: "acct-7f3a" } }], network_config: { base_url: media.roots.cloudflare } },
      replicate: {
        keys: [
          { id: "rep-models", value: media.keys.replicate, weight: 0 },
          { id: "rep-deployments", value: media.keys.replicate, weight: 0, replicate_key_config: { use_deployments_endpoint: true } },
        ],
        network_config: { base_url: media.roots.replicate },
      },
      huggingface: { keys: [{ id: "hf", value: media.keys.huggingface }], network_config: { base_url: media.roots.huggingface } },
      elevenlabs: { keys: [{ id: "xi", value: media.keys.elevenlabs }], network_config: { base_url: media.roots.elevenlabs } },
      fireworks: hosted("fireworks"),
      deepseek: hosted("deepseek"),
      moonshot: hosted("moonshot"),
      zai: hosted("zai"),
      nebius: hosted("nebius"),
      parasail: hosted("parasail"),
      xai: hosted("xai"),
      perplexity: hosted("perplexity"),
      ...Object.fromEntries(CHAT_ONLY.map((name) => [name, hosted(name)])),
      voyage: { keys: [{ id: "voyage", value: media.keys.voyage }], network_config: { base_url: media.roots.voyage } },
      jina: { keys: [{ id: "jina", value: media.keys.jina }], network_config: { base_url: media.roots.jina } },
      stability: { keys: [{ id: "stability", value: media.keys.stability }], network_config: { base_url: media.roots.stability } },
      watsonx: {
        keys: [{ id: "watsonx", value: media.keys.watsonx, watsonx_key_config: { project_id: "proj-42", iam_url: `${media.roots.iam}/identity/token` } }],
        network_config: { base_url: media.roots.watsonx },
      },
      azure: {
        keys: [
          { id: "az-key", value: "azure-api-key-0001", weight: 0, azure_key_config: { endpoint: openai.url, api_version: "2025-01-01-preview", deployments: { "gpt-4o": "prod-gpt4o" } } },
          { id: "az-entra", value: "", weight: 0, azure_key_config: { endpoint: openai.url, tenant_id: "contoso", client_id: "entra-app", client_secret: "entra-secret-0001" } },
        ],
      },
      vllm: { keys: [{ id: "vllm", vllm_key_config: { url: openai.url, model_name: "served-qwen" } }] },
      ollama: { keys: [{ id: "ollama", ollama_key_config: { url: `${openai.url}/` } }] },
      sgl: { keys: [{ id: "sgl", sgl_key_config: { url: `${openai.url}/v1` } }] },
      mistral: {
        keys: [
          { id: "off", value: "disabled-secret", enabled: false },
          { id: "on", value: "enabled-secret" },
        ],
        network_config: { base_url: openai.baseUrl },
      },
    },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  media.stop();
  openai.stop();
  oauth.stop();
  if (previousAuthority === undefined) delete process.env.AZURE_AUTHORITY_HOST;
  else process.env.AZURE_AUTHORITY_HOST = previousAuthority;
});

const chat = (model: string, content = "ping", headers: Record<string, string> = {}) => client.chat.completions.create({ model, messages: [{ role: "user", content }] }, { headers });
const lastOf = (provider: keyof MockMediaApis["requests"]) => media.requests[provider].at(-1)!;

describe("Cloudflare Workers AI: the key's account_id names where every call goes", () => {
  test("chat goes to the account's OpenAI-compatible endpoint with the token as bearer", async () => {
    const reply = await chat("cloudflare/@cf/meta/llama-3.1-8b-instruct", "hello workers");
    expect(reply.choices[0]!.message.content).toBe("workers ai: hello workers");
    const sent = lastOf("cloudflare");
    expect(sent.path).toBe("/accounts/acct-7f3a/ai/v1/chat/completions");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${media.keys.cloudflare}`);
    expect(sent.json!.model).toBe("@cf/meta/llama-3.1-8b-instruct");
  });

  test("images, speech and transcriptions run the model and come back in OpenAI's shapes", async () => {
    const image = await client.images.generate({ model: "cloudflare/@cf/black-forest-labs/flux-1-schnell", prompt: "a red kite" });
    expect(Buffer.from(image.data![0]!.b64_json!, "base64")).toEqual(Buffer.from(drawn("a red kite")));
    expect(lastOf("cloudflare").path).toBe("/accounts/acct-7f3a/ai/run/@cf/black-forest-labs/flux-1-schnell");

    const audio = await client.audio.speech.create({ model: "cloudflare/@cf/myshell-ai/melotts", voice: "default", input: "spoken by workers" });
    expect(new Uint8Array(await audio.arrayBuffer())).toEqual(spoken("spoken by workers"));

    const heard = await client.audio.transcriptions.create({ model: "cloudflare/@cf/openai/whisper", file: await toFile(new Uint8Array(321), "clip.mp3") });
    expect(heard.text).toBe("heard 321 bytes");
    expect(lastOf("cloudflare").path).toBe("/accounts/acct-7f3a/ai/run/@cf/openai/whisper");
  });
});

describe("Replicate: predictions, at the model's or the deployment's endpoint as the key says", () => {
  test("a key without use_deployments_endpoint creates predictions on the model, waiting for the answer", async () => {
    const reply = await chat("replicate/meta/meta-llama-3-8b-instruct", "what is up", { "x-gw-api-key-id": "rep-models" });
    expect(reply.choices[0]!.message.content).toBe("replicated: what is up");
    expect(reply.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 2 });
    const sent = lastOf("replicate");
    expect(sent.path).toBe("/models/meta/meta-llama-3-8b-instruct/predictions");
    expect(sent.headers.get("prefer")).toBe("wait");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${media.keys.replicate}`);
    expect(sent.json).toEqual({ input: { prompt: "what is up" } });
  });

  test("use_deployments_endpoint sends the same request to the deployment", async () => {
    await chat("replicate/acme/llama-prod", "deployed?", { "x-gw-api-key-id": "rep-deployments" });
    expect(lastOf("replicate").path).toBe("/deployments/acme/llama-prod/predictions");
  });

  test("a pinned version goes to /predictions with the version", async () => {
    await chat("replicate/meta/llama-2-70b-chat:02e509c7", "versioned", { "x-gw-api-key-id": "rep-models" });
    expect(lastOf("replicate")).toMatchObject({ path: "/predictions", json: { version: "02e509c7", input: { prompt: "versioned" } } });
  });

  test("images come back as the prediction's URLs", async () => {
    const image = await client.images.generate({ model: "replicate/black-forest-labs/flux-schnell", prompt: "a fox", n: 2 }, { headers: { "x-gw-api-key-id": "rep-models" } });
    expect(image.data).toEqual([{ url: "https://replicate.delivery/one.png" }]);
    expect(lastOf("replicate")).toMatchObject({ path: "/models/black-forest-labs/flux-schnell/predictions", json: { input: { prompt: "a fox", num_outputs: 2 } } });
  });
});

describe("Hugging Face: the router for chat, HF Inference pipelines for the rest", () => {
  test("chat, embeddings, images and transcriptions reach their endpoints with the token", async () => {
    expect((await chat("huggingface/meta-llama/Llama-3.1-8B-Instruct", "hi hf")).choices[0]!.message.content).toBe("hf: hi hf");
    expect(lastOf("huggingface").path).toBe("/v1/chat/completions");

    const embedded = await client.embeddings.create({ model: "huggingface/BAAI/bge-small-en-v1.5", input: ["abc", "de"], encoding_format: "float" });
    expect(embedded.data.map((row) => row.embedding)).toEqual([[3, 0.5], [2, 0.5]]);
    expect(lastOf("huggingface")).toMatchObject({ path: "/hf-inference/models/BAAI/bge-small-en-v1.5/pipeline/feature-extraction", json: { inputs: ["abc", "de"] } });

    const image = await client.images.generate({ model: "huggingface/stabilityai/sdxl", prompt: "a boat" });
    expect(Buffer.from(image.data![0]!.b64_json!, "base64")).toEqual(Buffer.from(drawn("a boat")));

    const heard = await client.audio.transcriptions.create({ model: "huggingface/openai/whisper-large-v3", file: await toFile(new Uint8Array(77), "a.flac") });
    expect(heard.text).toBe("hf heard 77 bytes");
    expect(lastOf("huggingface").headers.get("authorization")).toBe(`Bearer ${media.keys.huggingface}`);
  });
});

describe("ElevenLabs: speech and transcriptions", () => {
  test("speech streams from the voice's text-to-speech endpoint, the key as xi-api-key", async () => {
    const audio = await client.audio.speech.create({ model: "elevenlabs/eleven_multilingual_v2", voice: "JBFqnCBsd6RMkjVDRZzb", input: "bonjour", response_format: "opus" });
    expect(new Uint8Array(await audio.arrayBuffer())).toEqual(spoken("bonjour"));
    const sent = lastOf("elevenlabs");
    expect(sent.path).toBe("/text-to-speech/JBFqnCBsd6RMkjVDRZzb/stream?output_format=opus_48000_128");
    expect(sent.headers.get("xi-api-key")).toBe(media.keys.elevenlabs);
    expect(sent.json).toEqual({ text: "bonjour", model_id: "eleven_multilingual_v2" });
  });

  test("transcriptions go to speech-to-text as multipart with model_id", async () => {
    const heard = await client.audio.transcriptions.create({ model: "elevenlabs/scribe_v1", file: await toFile(new Uint8Array(55), "note.m4a"), language: "en" });
    expect(heard.text).toBe("scribed 55 bytes");
    const form = lastOf("elevenlabs").form!;
    expect([form.get("model_id"), form.get("language_code")]).toEqual(["scribe_v1", "en"]);
  });
});

describe("OpenAI-compatible providers from the catalogue", () => {
  test.each(["fireworks", "deepseek", "moonshot", "zai", "nebius", "parasail"])("%s: chat at {base}/chat/completions with its key as bearer", async (provider) => {
    await chat(`${provider}/some-model`);
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${provider}-secret`);
    expect(sent.body.model).toBe("some-model");
  });
});

describe("provider-specific fields pass both ways", () => {
  test("xAI: live search's search_parameters reach Grok as sent", async () => {
    const search_parameters = { mode: "on", sources: [{ type: "web" }], max_search_results: 5 };
    await client.chat.completions.create({ model: "xai/grok-4", messages: [{ role: "user", content: "news?" }], search_parameters } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(openai.requests.at(-1)!.body).toMatchObject({ model: "grok-4", search_parameters });
  });

  test("Perplexity: citations and search results stay in the reply and in the stream", async () => {
    const sources = { citations: ["https://example.org/a"], search_results: [{ title: "A", url: "https://example.org/a", date: "2026-11-30" }] };
    const reply = { id: "pplx-1", object: "chat.completion", created: 0, model: "sonar", choices: [{ index: 0, message: { role: "assistant", content: "per [1]" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, ...sources };
    openai.faults.push({ kind: "body", body: JSON.stringify(reply), contentType: "application/json" });
    expect(await chat("perplexity/sonar", "what happened?")).toMatchObject(sources);

    const chunk = { id: "pplx-2", object: "chat.completion.chunk", created: 0, model: "sonar", choices: [{ index: 0, delta: { content: "per [1]" }, finish_reason: "stop" }], ...sources };
    openai.faults.push({ kind: "stream-events", events: [chunk] });
    const stream = await client.chat.completions.create({ model: "perplexity/sonar", messages: [{ role: "user", content: "and now?" }], stream: true });
    const chunks: unknown[] = [];
    for await (const received of stream) chunks.push(received);
    expect(chunks[0]).toMatchObject(sources);
  });
});

describe("OpenAI-compatible providers without the Responses API", () => {
  test.each(CHAT_ONLY)("%s: chat and streams at {base}/chat/completions, a Responses call translated to chat", async (provider) => {
    await chat(`${provider}/some-model`);
    expect(openai.requests.at(-1)!).toMatchObject({ path: "/v1/chat/completions", body: { model: "some-model" } });
    expect(openai.requests.at(-1)!.headers.get("authorization")).toBe(`Bearer ${provider}-secret`);

    const stream = await client.chat.completions.create({ model: `${provider}/some-model`, messages: [{ role: "user", content: "stream please" }], stream: true });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed.length).toBeGreaterThan(0);
    expect(openai.requests.at(-1)!.body.stream).toBe(true);

    const response = await client.responses.create({ model: `${provider}/some-model`, input: "through chat" });
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(openai.requests.at(-1)!.path).toBe("/v1/chat/completions");
  });

  test("databricks is served at the workspace's address, so registering it without base_url is a 400 naming it", async () => {
    expect((await gw.admin("/api/providers/databricks", { method: "DELETE" })).status).toBe(200);
    const keys = [{ id: "databricks", value: "dapi-0001" }];
    await expectGatewayError(await gw.admin("/api/providers", { method: "POST", json: { provider: "databricks", keys } }), 400, { param: "network_config.base_url" });
    const created = await gw.admin("/api/providers", { method: "POST", json: { provider: "databricks", keys, network_config: { base_url: openai.baseUrl } } });
    expect(created.status).toBe(201);
    await chat("databricks/my-endpoint");
    expect(openai.requests.at(-1)!.headers.get("authorization")).toBe("Bearer dapi-0001");
  });
});

describe("Voyage AI: embeddings and rerank in its own field names", () => {
  test("embeddings: dimensions goes as output_dimension, total tokens are billed as input", async () => {
    const embedded = await client.embeddings.create({ model: "voyage/voyage-3.5", input: ["abcd"], dimensions: 256, encoding_format: "float" });
    expect(embedded.data[0]!.embedding).toEqual([4, 0.25]);
    expect(embedded.usage).toMatchObject({ prompt_tokens: 7, total_tokens: 7 });
    expect(lastOf("voyage")).toMatchObject({ path: "/embeddings", json: { model: "voyage-3.5", input: ["abcd"], output_dimension: 256 } });
  });

  test("rerank: top_n goes as top_k and the ranking comes back as results", async () => {
    const reply = (await (await postJson(`${gw.url}/v1/rerank`, { model: "voyage/rerank-2.5", query: "red kite", documents: ["a blue sky", "a red kite", "red roofs"], top_n: 2 })).json()) as { results: Array<{ index: number }>; usage: unknown };
    expect(reply.results.map((result) => result.index)).toEqual([1, 2]);
    expect(reply.usage).toMatchObject({ prompt_tokens: 11 });
    expect(lastOf("voyage").json).toMatchObject({ model: "rerank-2.5", top_k: 2 });
  });
});

describe("Jina AI: embeddings and rerank", () => {
  test("both reach Jina's API with the key as bearer, in the shapes clients send", async () => {
    const embedded = await client.embeddings.create({ model: "jina/jina-embeddings-v3", input: "hello", encoding_format: "float" });
    expect(embedded.data[0]!.embedding).toEqual([5, 0.25]);
    const reply = (await (await postJson(`${gw.url}/v1/rerank`, { model: "jina/jina-reranker-v2-base-multilingual", query: "cat", documents: ["dog", "cat"], top_n: 1 })).json()) as { results: Array<{ index: number; relevance_score: number }> };
    expect(reply.results).toEqual([{ index: 1, relevance_score: 1 }]);
    expect(lastOf("jina")).toMatchObject({ path: "/rerank", json: { model: "jina-reranker-v2-base-multilingual", top_n: 1 } });
  });

  test("a chat call to Jina is refused by the gateway, not sent", async () => {
    const before = media.requests.jina.length;
    const refused = await chat("jina/jina-embeddings-v3").catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: "caller_unsupported_operation" });
    expect(media.requests.jina.length).toBe(before);
  });
});

describe("IBM watsonx.ai: chat and embeddings in the key's project, with an IAM token", () => {
  test("chat: the API key is exchanged for an IAM token once, the body carries model_id and the project", async () => {
    const exchanges = media.requests.iam.length;
    const reply = await chat("watsonx/ibm/granite-3-8b-instruct", "hello granite");
    expect(reply).toMatchObject({ object: "chat.completion", model: "ibm/granite-3-8b-instruct", choices: [{ message: { content: "granite: hello granite" } }], usage: { prompt_tokens: 4, completion_tokens: 3 } });
    await chat("watsonx/ibm/granite-3-8b-instruct", "again");
    expect(media.requests.iam.length - exchanges).toBe(1);
    const sent = lastOf("watsonx");
    expect(sent.path).toBe("/text/chat?version=2024-10-08");
    expect(sent.json).toMatchObject({ model_id: "ibm/granite-3-8b-instruct", project_id: "proj-42", messages: [{ role: "user", content: "again" }] });
    expect(sent.json).not.toHaveProperty("model");
    expect(JSON.stringify(sent.headers.get("authorization"))).not.toContain(media.keys.watsonx);
  });

  test("a stream goes to chat_stream and reaches the client whole, usage included", async () => {
    const stream = await client.chat.completions.create({ model: "watsonx/ibm/granite-3-8b-instruct", messages: [{ role: "user", content: "flow" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("granite: flow");
    expect(usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 3 });
    expect(lastOf("watsonx").path).toBe("/text/chat_stream?version=2024-10-08");
    expect(lastOf("watsonx").json).not.toHaveProperty("stream");
  });

  test("embeddings: input goes as inputs, results come back as OpenAI's data with input tokens", async () => {
    const embedded = await client.embeddings.create({ model: "watsonx/ibm/slate-125m-english-rtrvr", input: ["abc", "de"], encoding_format: "float" });
    expect(embedded.data.map((row) => row.embedding)).toEqual([[3, 0.75], [2, 0.75]]);
    expect(embedded.usage).toMatchObject({ prompt_tokens: 6 });
    expect(lastOf("watsonx").json).toMatchObject({ inputs: ["abc", "de"], model_id: "ibm/slate-125m-english-rtrvr", project_id: "proj-42" });
  });
});

describe("Stability AI: Stable Image generation", () => {
  test("an OpenAI image request becomes its form, the size its nearest aspect ratio, n as many calls", async () => {
    const image = await client.images.generate({ model: "stability/sd3.5-large", prompt: "a lighthouse", size: "1792x1024", n: 2 });
    expect(image.data!.map((item) => Buffer.from(item.b64_json!, "base64"))).toEqual([Buffer.from(drawn("a lighthouse")), Buffer.from(drawn("a lighthouse"))]);
    const sent = lastOf("stability");
    expect(sent.path).toBe("/stable-image/generate/sd3");
    expect([sent.form!.get("model"), sent.form!.get("aspect_ratio"), sent.form!.get("prompt")]).toEqual(["sd3.5-large", "16:9", "a lighthouse"]);
  });

  test("ultra and core are endpoints of their own", async () => {
    await client.images.generate({ model: "stability/stable-image-ultra", prompt: "dunes" });
    expect(lastOf("stability").path).toBe("/stable-image/generate/ultra");
    expect(lastOf("stability").form!.get("model")).toBeNull();
  });

  test("an image Stability filtered out is a 400 the client can tell from a failure", async () => {
    const response = await postJson(`${gw.url}/v1/images/generations`, { model: "stability/stable-image-core", prompt: "something forbidden" });
    await expectGatewayError(response, 400, { errorType: "provider_content_filtered" });
  });
});

describe("key configs drive the request", () => {
  test("azure: deployments map the model, api_version is the query, the key travels as api-key", async () => {
    await chat("azure/gpt-4o", "hi", { "x-gw-api-key-id": "az-key" });
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe("/openai/deployments/prod-gpt4o/chat/completions?api-version=2025-01-01-preview");
    expect(sent.headers.get("api-key")).toBe("azure-api-key-0001");
    expect(sent.headers.get("authorization")).toBeNull();
  });

  test("azure without a value: an Entra ID token from tenant_id, client_id and client_secret, as bearer", async () => {
    await chat("azure/gpt-4o-mini", "hi", { "x-gw-api-key-id": "az-entra" });
    const token = oauth.requests.at(-1)!;
    expect(token).toMatchObject({ grantType: "client_credentials", clientAuth: "body", clientId: "entra-app" });
    expect(token.form.get("scope")).toBe("https://cognitiveservices.azure.com/.default");
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe("/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${oauth.issued.at(-1)}`);
    expect(sent.headers.get("api-key")).toBeNull();
  });

  test("vllm: the key's url is the server and model_name the model it serves", async () => {
    await chat("vllm/anything");
    expect(openai.requests.at(-1)!).toMatchObject({ path: "/v1/chat/completions", body: { model: "served-qwen" } });
  });

  test.each(["ollama", "sgl"])("%s: the key's url is the server, with or without /v1", async (provider) => {
    await chat(`${provider}/llama3`);
    expect(openai.requests.at(-1)!).toMatchObject({ path: "/v1/chat/completions", body: { model: "llama3" } });
  });

  test("enabled: false takes a key out of selection; pinning it is a 400", async () => {
    for (let attempt = 0; attempt < 5; attempt++) await chat("mistral/mistral-small");
    const bearers = new Set(openai.requests.slice(-5).map((request) => request.headers.get("authorization")));
    expect([...bearers]).toEqual(["Bearer enabled-secret"]);
    await expectGatewayError(await postJson(`${gw.url}/v1/chat/completions`, { model: "mistral/mistral-small", messages: [{ role: "user", content: "x" }] }, { "x-gw-api-key-id": "off" }), 400, { param: "x-gw-api-key-id" });
  });
});
