/**
 * A mock of Bedrock's runtime API speaking its real wire format: Converse (JSON),
 * ConverseStream and InvokeModelWithResponseStream (AWS binary event stream, each message
 * split across network chunks), InvokeModel. It verifies what a real Bedrock would: the
 * SigV4 signature (recomputed with @smithy/signature-v4 from the known credentials), the
 * session token, or the bearer API key; requests that fail answer 403 as AWS does.
 */
import { Sha256 } from "@aws-crypto/sha256-js";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { SignatureV4 } from "@smithy/signature-v4";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

export interface MockBedrockAuth {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  region: string;
  /** A Bedrock API key, accepted as `Authorization: Bearer`. */
  apiKey: string;
}

export interface RecordedBedrockRequest {
  /** The path as sent, still URL-encoded. */
  path: string;
  modelId: string;
  action: string;
  headers: Headers;
  body: Record<string, unknown>;
  auth: "sigv4" | "bearer";
}

type Block = Record<string, unknown>;
type Message = { role: string; content: Block[] };
type Body = {
  messages?: Message[];
  system?: Block[];
  inferenceConfig?: { maxTokens?: number; stopSequences?: string[]; temperature?: number; topP?: number };
  toolConfig?: { tools: Array<{ toolSpec?: { name: string } }> };
  additionalModelRequestFields?: { thinking?: { type: string } };
};

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const words = (text: string) => text.split(/\s+/).filter(Boolean);

function lastUserTurn(body: Body): { text: string; toolResult?: string } {
  const last = [...(body.messages ?? [])].reverse().find((message) => message.role === "user");
  const blocks = last?.content ?? [];
  const result = blocks.find((block) => block.toolResult)?.toolResult as { content: Array<{ text?: string }> } | undefined;
  const text = blocks.map((block) => (typeof block.text === "string" ? block.text : "")).join("");
  return { text, toolResult: result?.content.map((item) => item.text ?? "").join("") };
}

/** A deterministic Converse answer derived from the request, so tests can predict it. */
export function converseReply(body: Body) {
  const turn = lastUserTurn(body);
  const tool = body.toolConfig?.tools.find((entry) => entry.toolSpec)?.toolSpec;
  const content: Block[] = [];
  if (body.additionalModelRequestFields?.thinking?.type === "enabled") {
    content.push({ reasoningContent: { reasoningText: { text: `pondering ${turn.text}`, signature: `sig-${words(turn.text).length}` } } });
  }
  let stopReason = "end_turn";
  let reply = turn.toolResult !== undefined ? `tool said ${turn.toolResult}` : `echo: ${turn.text}`;
  if (tool && turn.toolResult === undefined && /weather|tool/i.test(turn.text)) {
    content.push({ toolUse: { toolUseId: "tooluse_mock_1", name: tool.name, input: { city: "Paris" } } });
    stopReason = "tool_use";
    reply = "";
  } else if (/forbidden/i.test(turn.text)) {
    reply = "Sorry, the model cannot answer this question.";
    stopReason = "guardrail_intervened";
  }
  const stop = body.inferenceConfig?.stopSequences?.find((sequence) => reply.includes(sequence));
  if (stop) [reply, stopReason] = [reply.slice(0, reply.indexOf(stop)), "stop_sequence"];
  const limit = body.inferenceConfig?.maxTokens;
  if (limit !== undefined && words(reply).length > limit) [reply, stopReason] = [words(reply).slice(0, limit).join(" "), "max_tokens"];
  if (reply) content.push({ text: reply });
  const cachedPrompt = body.system?.some((block) => block.cachePoint) ? words(body.system.map((block) => String(block.text ?? "")).join(" ")).length : 0;
  const inputTokens = Math.max(1, words(turn.text).length);
  const outputTokens = Math.max(1, words(reply).length);
  const usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens + cachedPrompt, ...(cachedPrompt ? { cacheReadInputTokens: cachedPrompt } : {}) };
  return { output: { message: { role: "assistant", content } }, stopReason, usage, metrics: { latencyMs: 12 } };
}

/** One event-stream message; real Bedrock pads payloads with a `p` field against length side channels. */
const event = (type: string, payload: Record<string, unknown>) =>
  codec.encode({
    headers: { ":event-type": { type: "string", value: type }, ":content-type": { type: "string", value: "application/json" }, ":message-type": { type: "string", value: "event" } },
    body: fromUtf8(JSON.stringify({ ...payload, p: "abcdefghij" })),
  });

function blockEvents(block: Block, index: number): Uint8Array[] {
  const at = { contentBlockIndex: index };
  if (typeof block.text === "string") return words(block.text).map((word, position) => event("contentBlockDelta", { ...at, delta: { text: position === 0 ? word : ` ${word}` } }));
  if (block.toolUse) {
    const { toolUseId, name, input } = block.toolUse as { toolUseId: string; name: string; input: unknown };
    const json = JSON.stringify(input);
    const half = Math.floor(json.length / 2);
    return [
      event("contentBlockStart", { ...at, start: { toolUse: { toolUseId, name } } }),
      event("contentBlockDelta", { ...at, delta: { toolUse: { input: json.slice(0, half) } } }),
      event("contentBlockDelta", { ...at, delta: { toolUse: { input: json.slice(half) } } }),
    ];
  }
  const reasoning = (block.reasoningContent as { reasoningText: { text: string; signature: string } }).reasoningText;
  return [event("contentBlockDelta", { ...at, delta: { reasoningContent: { text: reasoning.text } } }), event("contentBlockDelta", { ...at, delta: { reasoningContent: { signature: reasoning.signature } } })];
}

function converseStreamEvents(body: Body): Uint8Array[] {
  const reply = converseReply(body);
  const events = [event("messageStart", { role: "assistant" })];
  for (const [index, block] of reply.output.message.content.entries()) events.push(...blockEvents(block, index), event("contentBlockStop", { contentBlockIndex: index }));
  events.push(event("messageStop", { stopReason: reply.stopReason }), event("metadata", { usage: reply.usage, metrics: reply.metrics }));
  return events;
}

/** InvokeModel speaks the model's own format; this mock plays an Anthropic model. */
function anthropicReply(body: Record<string, unknown>, modelId: string) {
  const last = (body.messages as Array<{ content: string }> | undefined)?.at(-1)?.content ?? "";
  const text = `echo: ${last}`;
  return { id: "msg_mock_1", type: "message", role: "assistant", model: modelId, content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: words(last).length, output_tokens: words(text).length } };
}

function invokeStreamEvents(body: Record<string, unknown>, modelId: string): Uint8Array[] {
  const reply = anthropicReply(body, modelId);
  const chunk = (payload: unknown) => event("chunk", { bytes: Buffer.from(JSON.stringify(payload)).toString("base64") });
  return [
    chunk({ type: "message_start", message: { ...reply, content: [] } }),
    ...words(reply.content[0]!.text).map((word, index) => chunk({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: index === 0 ? word : ` ${word}` } })),
    chunk({ type: "message_stop" }),
  ];
}

/** Sends each message in two network chunks, so a reader must reassemble them. */
function eventStream(messages: Uint8Array[]): Response {
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (const message of messages) {
        const half = Math.floor(message.length / 2);
        controller.enqueue(message.subarray(0, half));
        await Bun.sleep(1);
        controller.enqueue(message.subarray(half));
      }
      controller.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": crypto.randomUUID() } });
}

const awsError = (status: number, type: string, message: string) => Response.json({ message }, { status, headers: { "x-amzn-errortype": type } });

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** Recomputes the SigV4 signature from the known credentials over exactly the headers the caller signed. */
async function verifySignature(request: Request, url: URL, body: string, auth: MockBedrockAuth): Promise<string | undefined> {
  const header = request.headers.get("authorization") ?? "";
  const match = AUTHORIZATION.exec(header);
  if (!match) return "missing or malformed SigV4 authorization";
  const [, accessKey, , region, service, signedHeaders] = match;
  if (accessKey !== auth.accessKeyId) return "unknown access key";
  if (region !== auth.region || service !== "bedrock") return `credential scope ${region}/${service} is wrong`;
  const names = signedHeaders!.split(";");
  if (!names.includes("host") || !names.includes("x-amz-security-token")) return "host and session token must be signed";
  if (request.headers.get("x-amz-security-token") !== auth.sessionToken) return "the security token included in the request is invalid";
  const headers = Object.fromEntries(names.map((name) => [name, request.headers.get(name) ?? ""]));
  const amzDate = headers["x-amz-date"]!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z");
  const signer = new SignatureV4({ service: "bedrock", region: auth.region, credentials: auth, sha256: Sha256 });
  const expected = await signer.sign(
    { method: request.method, protocol: url.protocol, hostname: url.hostname, port: Number(url.port), path: url.pathname, query: {}, headers, body },
    { signingDate: new Date(amzDate) },
  );
  return expected.headers.authorization === header ? undefined : "the request signature we calculated does not match the signature you provided";
}

export interface MockBedrock {
  url: string;
  requests: RecordedBedrockRequest[];
  stop(): void;
}

export function startMockBedrock(auth: MockBedrockAuth): MockBedrock {
  const mock: MockBedrock = { url: "", requests: [], stop: () => server.stop(true) };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const route = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(url.pathname);
      if (!route) return awsError(404, "UnknownOperationException", `no operation at ${url.pathname}`);
      const text = await request.text();
      const bearer = request.headers.get("authorization")?.match(/^Bearer (.+)$/)?.[1];
      if (bearer !== undefined && bearer !== auth.apiKey) return awsError(403, "UnrecognizedClientException", "invalid API key");
      const failure = bearer === undefined ? await verifySignature(request, url, text, auth) : undefined;
      if (failure) return awsError(403, "InvalidSignatureException", failure);
      const body = JSON.parse(text) as Record<string, unknown>;
      const [, encodedModel, action] = route as unknown as [string, string, string];
      const modelId = decodeURIComponent(encodedModel);
      mock.requests.push({ path: url.pathname, modelId, action, headers: request.headers, body, auth: bearer === undefined ? "sigv4" : "bearer" });
      // Claude 4.1 and later take one of temperature and topP, on Bedrock as on Anthropic's API.
      const sampling = (body as Body).inferenceConfig;
      if (action.startsWith("converse") && /claude/i.test(modelId) && sampling?.temperature !== undefined && sampling.topP !== undefined) {
        return awsError(400, "ValidationException", "The model returned the following errors: `temperature` and `top_p` cannot both be specified for this model. Please use only one.");
      }
      if (action === "converse") return Response.json(converseReply(body));
      if (action === "converse-stream") return eventStream(converseStreamEvents(body));
      if (action === "invoke") return Response.json(anthropicReply(body, modelId));
      return eventStream(invokeStreamEvents(body, modelId));
    },
  });
  mock.url = `http://127.0.0.1:${server.port}`;
  return mock;
}
