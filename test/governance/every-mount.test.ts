import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { type MockAnthropicBatches, startMockAnthropicBatches } from "../support/mock-anthropic-batches";
import { type MockBedrock, startMockBedrock } from "../support/mock-bedrock";
import { type MockCohere, startMockCohere } from "../support/mock-cohere";
import { type MockGemini, startMockGemini } from "../support/mock-gemini";
import { type MockGeminiBatches, startMockGeminiBatches } from "../support/mock-gemini-batches";
import { type MockGeminiLive, startMockGeminiLive } from "../support/mock-gemini-live";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { type MockOpenAIPlatform, startMockOpenAIPlatform } from "../support/mock-openai-platform";
import { createVirtualKey, openAIProvider } from "./support";

const BEDROCK_AUTH = { accessKeyId: "AKIAMOCKEVERYMOUNT", secretAccessKey: "every-mount-secret", sessionToken: "every-mount-session", region: "us-east-1", apiKey: "ABSKeverymountkey" };
const question = "is this governed";

let openaiUpstream: MockOpenAI;
let anthropicUpstream: MockAnthropic;
/** Anthropic's batches and files, reached as a provider of their own. */
let anthropicKeptUpstream: MockAnthropicBatches;
/** The Gemini API's files, and its models with their cached contents. */
let geminiKeptUpstream: MockGeminiBatches;
let geminiUpstream: MockGemini;
let geminiLiveUpstream: MockGeminiLive;
let bedrockUpstream: MockBedrock;
let cohereUpstream: MockCohere;
let platformUpstream: MockOpenAIPlatform;
let gw: TestGateway;
/** A file and a batch the platform already holds, and a background response OpenAI holds, for the routes that act on one. */
let heldFile: string;
let heldBatch: string;
let heldResponse: string;
let heldConversation: string;
let heldChatCompletion: string;
let heldContainer: string;
/** A finished video on OpenAI's mock, for the remix route. */
let heldVideo: string;
/** A Veo operation on Gemini's mock, named as the genai mount names it, for Vertex AI mode's poll. */
let heldVeoOperation: string;
/** A skill on Anthropic's mock, for the versions route. */
let heldSkill: string;
/** An eval and a run of it on OpenAI's mock, for the routes under them. */
let heldEval: string;
let heldEvalRun: string;
let heldMessageBatch: string;
let heldVectorStore: string;
let heldUpload: string;
let heldTuningJob: string;

const PLATFORM_KEY = "sk-platform-every-mount";

async function platformObjects() {
  const form = new FormData();
  form.append("purpose", "batch");
  form.append("file", new File(['{"custom_id":"a","body":{"model":"gpt-4o-mini","messages":[]}}\n'], "held.jsonl"));
  const auth = { authorization: `Bearer ${PLATFORM_KEY}` };
  heldFile = ((await (await fetch(`${platformUpstream.baseUrl}/files`, { method: "POST", headers: auth, body: form })).json()) as { id: string }).id;
  const batch = await fetch(`${platformUpstream.baseUrl}/batches`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ input_file_id: heldFile, endpoint: "/v1/chat/completions", completion_window: "24h" }) });
  heldBatch = ((await batch.json()) as { id: string }).id;
  const store = await fetch(`${platformUpstream.baseUrl}/vector_stores`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ file_ids: [heldFile] }) });
  heldVectorStore = ((await store.json()) as { id: string }).id;
  const upload = await fetch(`${platformUpstream.baseUrl}/uploads`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ filename: "held.jsonl", purpose: "fine-tune", bytes: 0, mime_type: "text/jsonl" }) });
  heldUpload = ((await upload.json()) as { id: string }).id;
  const job = await fetch(`${platformUpstream.baseUrl}/fine_tuning/jobs`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-4o-mini-2024-07-18", training_file: heldFile }) });
  heldTuningJob = ((await job.json()) as { id: string }).id;
}

beforeAll(async () => {
  openaiUpstream = startMockOpenAI();
  anthropicUpstream = startMockAnthropic("sk-ant-every-mount");
  anthropicKeptUpstream = startMockAnthropicBatches("sk-ant-kept-every-mount");
  geminiKeptUpstream = startMockGeminiBatches("gemini-kept-every-mount");
  geminiUpstream = startMockGemini();
  geminiLiveUpstream = startMockGeminiLive("gemini-live-every-mount");
  const veo = await fetch(`${geminiUpstream.geminiBaseUrl}/models/veo-3.0-fast-generate-001:predictLongRunning`, {
    method: "POST",
    headers: { "x-goog-api-key": geminiUpstream.apiKey, "content-type": "application/json" },
    body: JSON.stringify({ instances: [{ prompt: question }] }),
  });
  heldVeoOperation = ((await veo.json()) as { name: string }).name.replace(/^models\//, "models/gemini-models%2F");
  const messageBatch = await fetch(`${anthropicKeptUpstream.baseUrl}/messages/batches`, {
    method: "POST",
    headers: { "x-api-key": anthropicKeptUpstream.apiKey, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ requests: [{ custom_id: "held", params: { model: "claude-3-5-haiku-20241022", max_tokens: 8, messages: [{ role: "user", content: question }] } }] }),
  });
  heldMessageBatch = ((await messageBatch.json()) as { id: string }).id;
  const skill = await fetch(`${anthropicKeptUpstream.baseUrl}/skills`, { method: "POST", headers: { "x-api-key": anthropicKeptUpstream.apiKey, "anthropic-version": "2023-06-01" }, body: skillForm() });
  heldSkill = ((await skill.json()) as { id: string }).id;
  bedrockUpstream = startMockBedrock(BEDROCK_AUTH);
  cohereUpstream = startMockCohere("cohere-every-mount");
  platformUpstream = startMockOpenAIPlatform();
  platformUpstream.keys.set(PLATFORM_KEY, []);
  await platformObjects();
  const background = await fetch(`${openaiUpstream.baseUrl}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-4o-mini", input: question, background: true }) });
  heldResponse = ((await background.json()) as { id: string }).id;
  const conversation = await fetch(`${openaiUpstream.baseUrl}/conversations`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  heldConversation = ((await conversation.json()) as { id: string }).id;
  const storedChat = await fetch(`${openaiUpstream.baseUrl}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: question }], store: true }) });
  heldChatCompletion = ((await storedChat.json()) as { id: string }).id;
  const container = await fetch(`${openaiUpstream.baseUrl}/containers`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "held" }) });
  heldContainer = ((await container.json()) as { id: string }).id;
  const video = await fetch(`${openaiUpstream.baseUrl}/videos`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt: question }) });
  heldVideo = ((await video.json()) as { id: string }).id;
  openaiUpstream.videos.get(heldVideo)!.object.status = "completed";
  const evaluation = await fetch(`${openaiUpstream.baseUrl}/evals`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ data_source_config: { type: "custom" } }) });
  heldEval = ((await evaluation.json()) as { id: string }).id;
  const evalRun = await fetch(`${openaiUpstream.baseUrl}/evals/${heldEval}/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ data_source: { type: "completions" } }) });
  heldEvalRun = ((await evalRun.json()) as { id: string }).id;
  gw = await startGateway({
    enforce_auth_on_inference: true,
    providers: {
      openai: openAIProvider(openaiUpstream),
      anthropic: { keys: [{ id: "a1", value: "sk-ant-every-mount" }], network_config: { base_url: anthropicUpstream.baseUrl } },
      bedrock: { keys: [{ id: "b1", value: BEDROCK_AUTH.apiKey, models: ["*"], bedrock_key_config: { region: BEDROCK_AUTH.region } }], network_config: { base_url: bedrockUpstream.url } },
      cohere: { keys: [{ id: "c1", value: "cohere-every-mount" }], network_config: { base_url: cohereUpstream.baseUrl } },
      "gemini-models": { keys: [{ id: "gm1", value: geminiUpstream.apiKey }], network_config: { base_url: geminiUpstream.geminiBaseUrl }, custom_provider_config: { base_provider_type: "gemini" } },
      "gemini-kept": { keys: [{ id: "gk1", value: "gemini-kept-every-mount" }], network_config: { base_url: geminiKeptUpstream.baseUrl }, custom_provider_config: { base_provider_type: "gemini" } },
      "gemini-live": { keys: [{ id: "gl1", value: "gemini-live-every-mount" }], network_config: { base_url: geminiLiveUpstream.baseUrl }, custom_provider_config: { base_provider_type: "gemini" } },
      "anthropic-kept": { keys: [{ id: "ak1", value: "sk-ant-kept-every-mount" }], network_config: { base_url: anthropicKeptUpstream.baseUrl }, custom_provider_config: { base_provider_type: "anthropic" } },
      // OpenAI's audio, images, files and batches, on a mock of its own.
      platform: { keys: [{ id: "p1", value: PLATFORM_KEY, use_for_batch_api: true }], network_config: { base_url: platformUpstream.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
    },
  });
  const prompt = await gw.admin("/api/prompts", { method: "POST", json: { name: PROMPT, model: CHAT_MODEL, messages: [{ role: "user", content: "{{question}}" }] } });
  expect(prompt.status).toBe(201);
});
afterAll(async () => {
  await gw.close();
  openaiUpstream.stop();
  anthropicUpstream.stop();
  anthropicKeptUpstream.stop();
  geminiKeptUpstream.stop();
  geminiUpstream.stop();
  geminiLiveUpstream.stop();
  bedrockUpstream.stop();
  cohereUpstream.stop();
  platformUpstream.stop();
});

interface Call {
  path: string;
  body: Record<string, unknown> | FormData;
  headers?: Record<string, string>;
}

/** A multipart form with a file, as the SDKs send uploads. */
function form(fields: Record<string, string>, file: { name: string; content: string }, fileField = "file"): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append(fileField, new File([file.content], file.name));
  return body;
}

const CHAT_MODEL = "openai/gpt-4o-mini";
/** A prompt whose runs must be governed like any chat. */
const PROMPT = "governed";
const anthropicMessage = { max_tokens: 32, messages: [{ role: "user", content: question }] };
const bedrockModel = (model: string) => encodeURIComponent(model);

/** Azure OpenAI's path for an operation: the deployment (here a model, `provider/` escaped in) in the path, no model in the body. */
function azureStyle(operation: string, deployment: string, body: Record<string, unknown> | (() => FormData)): [string, (prefix: string) => Call] {
  const suffix = `/openai/deployments/:deployment/${operation}`;
  return [suffix, (prefix) => ({ path: `${prefix}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=2024-10-21`, body: typeof body === "function" ? body() : body })];
}

/** A skill's folder, as the Skills API takes it. */
function skillForm(): FormData {
  const body = new FormData();
  body.append("files[]", new File(["---\nname: held\ndescription: held\n---\n"], "held/SKILL.md"));
  return body;
}

/** The headers of a call on what OpenAI's platform mock keeps (files, vector stores). */
const ON_PLATFORM = { "x-gw-provider": "platform" };

/** The headers of a call on what Anthropic keeps, sent to the provider that holds it. */
const ANTHROPIC_KEPT = { "x-gw-provider": "anthropic-kept", "anthropic-version": "2023-06-01" };

/**
 * A real request for each kind of route, by the end of its path: wherever a mount sits, the
 * formats beneath it are the same. A route this table does not know fails the test.
 */
const CALLS: Array<[suffix: string, build: (prefix: string) => Call]> = [
  ["/v1/prompts/:name/chat/completions", (prefix) => ({ path: `${prefix}/v1/prompts/${PROMPT}/chat/completions`, body: { variables: { question } } })],
  ["/v1/prompts/:name/responses", (prefix) => ({ path: `${prefix}/v1/prompts/${PROMPT}/responses`, body: { variables: { question } } })],
  ["/v1/prompts/:name/messages", (prefix) => ({ path: `${prefix}/v1/prompts/${PROMPT}/messages`, body: { variables: { question }, max_tokens: 32 } })],
  ["/v1/chat/completions", (prefix) => ({ path: `${prefix}/v1/chat/completions`, body: { model: CHAT_MODEL, messages: [{ role: "user", content: question }] } })],
  ["/v1/chat/completions/:id", (prefix) => ({ path: `${prefix}/v1/chat/completions/${heldChatCompletion}`, body: { metadata: {} }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/completions", (prefix) => ({ path: `${prefix}/v1/completions`, body: { model: CHAT_MODEL, prompt: question } })],
  ["/v1/embeddings", (prefix) => ({ path: `${prefix}/v1/embeddings`, body: { model: "openai/text-embedding-3-small", input: question } })],
  ["/v1/responses", (prefix) => ({ path: `${prefix}/v1/responses`, body: { model: CHAT_MODEL, input: question } })],
  ["/v1/responses/input_tokens", (prefix) => ({ path: `${prefix}/v1/responses/input_tokens`, body: { model: "platform/gpt-4o-mini", input: question } })],
  ["/v1/responses/:id/cancel", (prefix) => ({ path: `${prefix}/v1/responses/${heldResponse}/cancel`, body: {}, headers: { "x-gw-provider": "openai" } })],
  ["/v1/conversations", (prefix) => ({ path: `${prefix}/v1/conversations`, body: {}, headers: { "x-gw-provider": "openai" } })],
  ["/v1/conversations/:id", (prefix) => ({ path: `${prefix}/v1/conversations/${heldConversation}`, body: { metadata: {} }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/conversations/:id/items", (prefix) => ({ path: `${prefix}/v1/conversations/${heldConversation}/items`, body: { items: [] }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/videos", (prefix) => ({ path: `${prefix}/v1/videos`, body: { model: "sora-2", prompt: question }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/videos/:id/remix", (prefix) => ({ path: `${prefix}/v1/videos/${heldVideo}/remix`, body: { prompt: question }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/videos/edits", (prefix) => ({ path: `${prefix}/v1/videos/edits`, body: { prompt: question }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/videos/extensions", (prefix) => ({ path: `${prefix}/v1/videos/extensions`, body: { prompt: question }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/videos/characters", (prefix) => ({ path: `${prefix}/v1/videos/characters`, body: { name: "held" }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/evals", (prefix) => ({ path: `${prefix}/v1/evals`, body: { data_source_config: { type: "custom" } }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/evals/:id", (prefix) => ({ path: `${prefix}/v1/evals/${heldEval}`, body: { name: "renamed" }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/evals/:id/runs", (prefix) => ({ path: `${prefix}/v1/evals/${heldEval}/runs`, body: { data_source: { type: "completions" } }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/evals/:id/runs/:run_id", (prefix) => ({ path: `${prefix}/v1/evals/${heldEval}/runs/${heldEvalRun}`, body: {}, headers: { "x-gw-provider": "openai" } })],
  ["/v1/realtime/calls", (prefix) => ({ path: `${prefix}/v1/realtime/calls`, body: form({ sdp: "v=0\r\n", session: JSON.stringify({ type: "realtime" }) }, { name: "unused.txt", content: "" }), headers: { "x-gw-provider": "openai" } })],
  ...["accept", "hangup", "refer", "reject"].map((action): [string, (prefix: string) => Call] => [
    `/v1/realtime/calls/:id/${action}`,
    (prefix) => ({ path: `${prefix}/v1/realtime/calls/rtc_held/${action}`, body: action === "refer" ? { target_uri: "tel:+14155550123" } : { type: "realtime" }, headers: { "x-gw-provider": "openai" } }),
  ]),
  ["/v1/realtime/client_secrets", (prefix) => ({ path: `${prefix}/v1/realtime/client_secrets`, body: { session: { type: "realtime", model: "gpt-realtime" } }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/containers", (prefix) => ({ path: `${prefix}/v1/containers`, body: { name: "sandbox" }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/containers/:id/files", (prefix) => ({ path: `${prefix}/v1/containers/${heldContainer}/files`, body: { file_id: "file-held" }, headers: { "x-gw-provider": "openai" } })],
  ["/v1/vector_stores", (prefix) => ({ path: `${prefix}/v1/vector_stores`, body: { name: "store" }, headers: ON_PLATFORM })],
  ["/v1/vector_stores/:id", (prefix) => ({ path: `${prefix}/v1/vector_stores/${heldVectorStore}`, body: { name: "renamed" }, headers: ON_PLATFORM })],
  ["/v1/vector_stores/:id/search", (prefix) => ({ path: `${prefix}/v1/vector_stores/${heldVectorStore}/search`, body: { query: question }, headers: ON_PLATFORM })],
  ["/v1/vector_stores/:id/files", (prefix) => ({ path: `${prefix}/v1/vector_stores/${heldVectorStore}/files`, body: { file_id: heldFile }, headers: ON_PLATFORM })],
  ["/v1/vector_stores/:id/files/:file_id", (prefix) => ({ path: `${prefix}/v1/vector_stores/${heldVectorStore}/files/${heldFile}`, body: { attributes: {} }, headers: ON_PLATFORM })],
  ["/v1/vector_stores/:id/file_batches", (prefix) => ({ path: `${prefix}/v1/vector_stores/${heldVectorStore}/file_batches`, body: { file_ids: [heldFile] }, headers: ON_PLATFORM })],
  ["/v1/vector_stores/:id/file_batches/:batch_id/cancel", (prefix) => ({ path: `${prefix}/v1/vector_stores/${heldVectorStore}/file_batches/vsfb_held/cancel`, body: {}, headers: ON_PLATFORM })],
  ["/v1/uploads", (prefix) => ({ path: `${prefix}/v1/uploads`, body: { filename: "a.jsonl", purpose: "fine-tune", bytes: 1, mime_type: "text/jsonl" }, headers: ON_PLATFORM })],
  ["/v1/uploads/:id/parts", (prefix) => ({ path: `${prefix}/v1/uploads/${heldUpload}/parts`, body: form({}, { name: "part", content: "{}" }, "data"), headers: ON_PLATFORM })],
  ["/v1/uploads/:id/complete", (prefix) => ({ path: `${prefix}/v1/uploads/${heldUpload}/complete`, body: { part_ids: [] }, headers: ON_PLATFORM })],
  ["/v1/uploads/:id/cancel", (prefix) => ({ path: `${prefix}/v1/uploads/${heldUpload}/cancel`, body: {}, headers: ON_PLATFORM })],
  ["/v1/fine_tuning/jobs", (prefix) => ({ path: `${prefix}/v1/fine_tuning/jobs`, body: { model: "gpt-4o-mini-2024-07-18", training_file: heldFile }, headers: ON_PLATFORM })],
  ["/v1/fine_tuning/jobs/:id/cancel", (prefix) => ({ path: `${prefix}/v1/fine_tuning/jobs/${heldTuningJob}/cancel`, body: {}, headers: ON_PLATFORM })],
  ["/v1/fine_tuning/jobs/:id/pause", (prefix) => ({ path: `${prefix}/v1/fine_tuning/jobs/${heldTuningJob}/pause`, body: {}, headers: ON_PLATFORM })],
  ["/v1/fine_tuning/jobs/:id/resume", (prefix) => ({ path: `${prefix}/v1/fine_tuning/jobs/${heldTuningJob}/resume`, body: {}, headers: ON_PLATFORM })],
  ["/v1/rerank", (prefix) => ({ path: `${prefix}/v1/rerank`, body: { model: "cohere/rerank-v3.5", query: question, documents: ["yes", "no"] } })],
  ["/v1/audio/speech", (prefix) => ({ path: `${prefix}/v1/audio/speech`, body: { model: "platform/gpt-4o-mini-tts", voice: "alloy", input: question } })],
  ["/v1/audio/transcriptions", (prefix) => ({ path: `${prefix}/v1/audio/transcriptions`, body: form({ model: "platform/whisper-1" }, { name: "q.wav", content: "RIFF" }) })],
  ["/v1/audio/translations", (prefix) => ({ path: `${prefix}/v1/audio/translations`, body: form({ model: "platform/whisper-1" }, { name: "q.wav", content: "RIFF" }) })],
  ["/v1/images/edits", (prefix) => ({ path: `${prefix}/v1/images/edits`, body: form({ model: "platform/gpt-image-1", prompt: question }, { name: "q.png", content: "PNG" }, "image") })],
  ["/v1/moderations", (prefix) => ({ path: `${prefix}/v1/moderations`, body: { model: "platform/omni-moderation-latest", input: question } })],
  ["/v1/images/generations", (prefix) => ({ path: `${prefix}/v1/images/generations`, body: { model: "platform/gpt-image-1", prompt: question } })],
  ["/anthropic/v1/skills", (prefix) => ({ path: `${prefix}/anthropic/v1/skills`, body: skillForm(), headers: ANTHROPIC_KEPT })],
  ["/anthropic/v1/skills/:id/versions", (prefix) => ({ path: `${prefix}/anthropic/v1/skills/${heldSkill}/versions`, body: skillForm(), headers: ANTHROPIC_KEPT })],
  ["/anthropic/v1/files", (prefix) => ({ path: `${prefix}/anthropic/v1/files`, body: form({}, { name: "notes.txt", content: question }), headers: { ...ANTHROPIC_KEPT, "anthropic-beta": "files-api-2025-04-14" } })],
  ["/v1/files", (prefix) => ({ path: `${prefix}/v1/files`, body: form({ purpose: "batch", provider: "platform" }, { name: "in.jsonl", content: "{}\n" }) })],
  ["/v1/batches", (prefix) => ({ path: `${prefix}/v1/batches`, body: { provider: "platform", input_file_id: heldFile, endpoint: "/v1/chat/completions", completion_window: "24h" } })],
  ["/v1/batches/:batch_id/cancel", (prefix) => ({ path: `${prefix}/v1/batches/${heldBatch}/cancel`, body: {}, headers: { "x-gw-provider": "platform" } })],
  azureStyle("chat/completions", "gpt-4o-mini", { messages: [{ role: "user", content: question }] }),
  azureStyle("completions", "gpt-4o-mini", { prompt: question }),
  azureStyle("embeddings", "text-embedding-3-small", { input: question }),
  azureStyle("audio/speech", "platform/gpt-4o-mini-tts", { voice: "alloy", input: question }),
  azureStyle("audio/transcriptions", "platform/whisper-1", () => form({}, { name: "q.wav", content: "RIFF" })),
  azureStyle("audio/translations", "platform/whisper-1", () => form({}, { name: "q.wav", content: "RIFF" })),
  azureStyle("images/generations", "platform/gpt-image-1", { prompt: question }),
  azureStyle("images/edits", "platform/gpt-image-1", () => form({ prompt: question }, { name: "q.png", content: "PNG" }, "image")),
  ["/v1/messages", (prefix) => ({ path: `${prefix}/v1/messages`, body: { model: CHAT_MODEL, ...anthropicMessage } })],
  ["/v1/messages/count_tokens", (prefix) => ({ path: `${prefix}/v1/messages/count_tokens`, body: { model: "anthropic/claude-3-5-haiku-20241022", messages: anthropicMessage.messages } })],
  ["/v1/messages/batches/:id/cancel", (prefix) => ({ path: `${prefix}/v1/messages/batches/${heldMessageBatch}/cancel`, body: {}, headers: ANTHROPIC_KEPT })],
  ["/v1/messages/*", (prefix) => ({ path: `${prefix}/v1/messages/batches`, body: { requests: [{ custom_id: "one", params: { model: "anthropic/claude-3-5-haiku-20241022", ...anthropicMessage } }] } })],
  ["/v1/complete", (prefix) => ({ path: `${prefix}/v1/complete`, body: { model: "anthropic/claude-2.1", prompt: `\n\nHuman: ${question}\n\nAssistant:`, max_tokens_to_sample: 32 } })],
  ["/model/:modelId/converse", (prefix) => ({ path: `${prefix}/model/${bedrockModel(CHAT_MODEL)}/converse`, body: { messages: [{ role: "user", content: [{ text: question }] }] } })],
  ["/model/:modelId/converse-stream", (prefix) => ({ path: `${prefix}/model/${bedrockModel(CHAT_MODEL)}/converse-stream`, body: { messages: [{ role: "user", content: [{ text: question }] }] } })],
  ["/model/:modelId/invoke", (prefix) => ({ path: `${prefix}/model/${bedrockModel("bedrock/anthropic.claude-3-haiku-20240307-v1:0")}/invoke`, body: { anthropic_version: "bedrock-2023-05-31", ...anthropicMessage } })],
  ["/model/:modelId/invoke-with-response-stream", (prefix) => ({ path: `${prefix}/model/${bedrockModel("bedrock/anthropic.claude-3-haiku-20240307-v1:0")}/invoke-with-response-stream`, body: { anthropic_version: "bedrock-2023-05-31", ...anthropicMessage } })],
  ["/v2/chat", (prefix) => ({ path: `${prefix}/v2/chat`, body: { model: CHAT_MODEL, messages: [{ role: "user", content: question }] } })],
  ["/v2/embed", (prefix) => ({ path: `${prefix}/v2/embed`, body: { model: "openai/text-embedding-3-small", texts: [question], input_type: "search_document", embedding_types: ["float"] } })],
  ["/v2/rerank", (prefix) => ({ path: `${prefix}/v2/rerank`, body: { model: "cohere/rerank-v3.5", query: question, documents: ["yes", "no"] } })],
  ["/upload/v1beta/files", (prefix) => ({
    path: `${prefix}/upload/v1beta/files`,
    body: { file: { displayName: "notes.txt" } },
    headers: { "x-gw-provider": "gemini-kept", "x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start", "x-goog-upload-header-content-length": "5", "x-goog-upload-header-content-type": "text/plain" },
  })],
  ["/v1alpha/auth_tokens", (prefix) => ({ path: `${prefix}/v1alpha/auth_tokens`, body: { uses: 1 }, headers: { "x-gw-provider": "gemini-live" } })],
  ["/v1beta/cachedContents", (prefix) => ({ path: `${prefix}/v1beta/cachedContents`, body: { model: "models/gemini-2.5-flash", contents: [{ role: "user", parts: [{ text: question }] }] }, headers: { "x-gw-provider": "gemini-models" } })],
  ["/v1beta/models/*", (prefix) => ({ path: `${prefix}/v1beta/models/${CHAT_MODEL}:generateContent`, body: { contents: [{ role: "user", parts: [{ text: question }] }] } })],
  ["/v1/models/*", (prefix) => ({ path: `${prefix}/v1/models/${CHAT_MODEL}:generateContent`, body: { contents: [{ role: "user", parts: [{ text: question }] }] } })],
  ["/v1beta1/models/*", (prefix) => ({ path: `${prefix}/v1beta1/${heldVeoOperation.split("/operations/")[0]}:fetchPredictOperation`, body: { operationName: heldVeoOperation } })],
  [
    "/locations/:location/cachedContents",
    (prefix) => ({ path: `${prefix.replace(":project", "p")}/locations/l/cachedContents`, body: { model: "projects/p/locations/l/publishers/google/models/gemini-2.5-flash", contents: [{ role: "user", parts: [{ text: question }] }] }, headers: { "x-gw-provider": "gemini-models" } }),
  ],
  ["/locations/:location/models/*", (prefix) => ({ path: `${prefix.replace(":project", "p")}/locations/l/${heldVeoOperation.split("/operations/")[0]}:fetchPredictOperation`, body: { operationName: heldVeoOperation } })],
  // Vertex AI mode writes provider/model as publishers/{provider}/models/{model}.
  ["/publishers/:publisher/models/*", (prefix) => ({ path: `${prefix.replace(":project", "p").replace(":location", "l")}/publishers/${CHAT_MODEL.replace("/", "/models/")}:generateContent`, body: { contents: [{ role: "user", parts: [{ text: question }] }] } })],
];

/**
 * Not model inference through the pipeline: management, the A2A proxy and MCP (tool calls are
 * governed by the key's mcp_configs where they run), and async job submission, whose jobs
 * run through the same pipeline when they execute.
 */
const NOT_INFERENCE = /^\/(api|agents|mcp)(\/|$)|^\/v1\/(mcp|async)\//;

function callFor(route: string): Call {
  const match = CALLS.find(([suffix]) => route.endsWith(suffix) && route.length > suffix.length - 1);
  if (!match) throw new Error(`no request is known for the inference route ${route}: add one to CALLS`);
  return match[1](route.slice(0, route.length - match[0].length));
}

function send(call: Call, virtualKey?: string) {
  const headers: Record<string, string> = { ...call.headers, ...(virtualKey ? { "x-gw-vk": virtualKey } : {}) };
  if (call.body instanceof FormData) return fetch(`${gw.url}${call.path}`, { method: "POST", headers, body: call.body });
  return fetch(`${gw.url}${call.path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(call.body) });
}

/** Every POST route the gateway serves for inference, read from the running app. */
/** The framework mounts share one set of routes under `/:framework`: each framework is a mount of its own to a caller. */
const FRAMEWORKS = ["litellm", "langchain", "pydanticai"];

function inferenceRoutes(): string[] {
  const paths = gw.gateway.app.routes.filter((route) => route.method === "POST" && !NOT_INFERENCE.test(route.path)).map((route) => route.path);
  return [...new Set(paths.flatMap((path) => (path.startsWith("/:framework/") ? FRAMEWORKS.map((framework) => path.replace(":framework", framework)) : [path])))];
}

describe("no route bypasses governance", () => {
  test("the route table has every mount: /v1, the five provider mounts, the three framework mounts, /claude-code", () => {
    const routes = inferenceRoutes();
    for (const mount of ["/v1/", "/openai/", "/anthropic/", "/genai/", "/bedrock/", "/cohere/", "/litellm/", "/langchain/", "/pydanticai/", "/claude-code/"]) {
      expect(routes.some((route) => route.startsWith(mount))).toBe(true);
    }
    expect(routes).toContain("/anthropic/v1/messages/*");
    expect(routes).toContain("/claude-code/v1/messages/*");
  });

  test("every inference route refuses a request without a virtual key, serves one with a key, and counts it against the key's limit", async () => {
    const outcomes: Record<string, number[]> = {};
    for (const route of inferenceRoutes()) {
      const call = callFor(route);
      const key = await createVirtualKey(gw, { name: `limit-one ${route}`, rate_limit: { request_max_limit: 1, request_reset_duration: "1h" } });
      const anonymous = await send(call);
      const first = await send(call, key.value);
      const second = await send(call, key.value);
      const [anonymousText, , secondText] = [await anonymous.text(), await first.arrayBuffer(), await second.text()];
      outcomes[route] = [anonymous.status, first.status, second.status];
      expect({ route, text: anonymousText }).toMatchObject({ text: expect.stringContaining("caller_virtual_key_required") });
      expect({ route, text: secondText }).toMatchObject({ text: expect.stringContaining("policy_rate_limited") });
    }
    // A Realtime call's offer is answered 201 Created, as OpenAI answers it.
    const expected = Object.fromEntries(Object.keys(outcomes).map((route) => [route, [401, route.endsWith("/realtime/calls") ? 201 : 200, 429]]));
    expect(outcomes).toEqual(expected);
  }, 60_000);
});
