import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  BedrockRuntimeClient,
  type ContentBlock,
  ConverseCommand,
  ConverseStreamCommand,
  type ConverseStreamOutput,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type Message,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockBedrock, type MockBedrockAuth, startMockBedrock } from "../support/mock-bedrock";

const AUTH: MockBedrockAuth = {
  accessKeyId: "AKIAMOCKGATEWAYTEST",
  secretAccessKey: "mock-secret-access-key-0123456789",
  sessionToken: "mock-session-token-abcdef",
  region: "eu-west-3",
  apiKey: "ABSKmockbedrockapikey0001",
};
const MODEL = "anthropic.claude-3-haiku-20240307-v1:0";
const IAM_KEY = { access_key: AUTH.accessKeyId, secret_key: AUTH.secretAccessKey, session_token: AUTH.sessionToken, region: AUTH.region };

let upstream: MockBedrock;
let gw: TestGateway;

/** The AWS SDK as an application configures it, pointed at the gateway, with credentials that mean nothing to it. */
function sdkClient(mount = "/bedrock") {
  return new BedrockRuntimeClient({
    endpoint: `${gw.url}${mount}`,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIACLIENTDUMMY", secretAccessKey: "client-dummy-secret" },
    // The SDK's default handler speaks HTTP/2, which needs TLS; the test gateway is plain HTTP/1.1.
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
}

const userSays = (text: string): Message => ({ role: "user", content: [{ text }] });

async function collect(stream: AsyncIterable<ConverseStreamOutput> | undefined) {
  const events: ConverseStreamOutput[] = [];
  for await (const event of stream ?? []) events.push(event);
  const text = events.map((event) => event.contentBlockDelta?.delta?.text ?? "").join("");
  return { events, text };
}

beforeAll(async () => {
  process.env.TEST_BEDROCK_SECRET_KEY = AUTH.secretAccessKey;
  upstream = startMockBedrock(AUTH);
  gw = await startGateway({
    env_references: { allow: ["TEST_BEDROCK_*"] },
    providers: {
      bedrock: {
        keys: [
          {
            id: "aws",
            models: ["*"],
            bedrock_key_config: { ...IAM_KEY, secret_key: "env.TEST_BEDROCK_SECRET_KEY" },
          },
        ],
        network_config: { base_url: upstream.url },
      },
      "bedrock-apikey": {
        keys: [{ id: "api-key", value: AUTH.apiKey, models: ["*"], bedrock_key_config: { region: AUTH.region } }],
        network_config: { base_url: upstream.url },
        custom_provider_config: { base_provider_type: "bedrock" },
      },
      "bedrock-profile": {
        keys: [{ id: "profile", models: ["*"], bedrock_key_config: { ...IAM_KEY, arn: `arn:aws:bedrock:${AUTH.region}:123456789012:inference-profile` } }],
        network_config: { base_url: upstream.url },
        custom_provider_config: { base_provider_type: "bedrock" },
      },
      "bedrock-wrong-secret": {
        keys: [{ id: "wrong", models: ["*"], bedrock_key_config: { ...IAM_KEY, secret_key: "not-the-secret" } }],
        network_config: { base_url: upstream.url },
        custom_provider_config: { base_provider_type: "bedrock" },
      },
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  delete process.env.TEST_BEDROCK_SECRET_KEY;
});

describe("AWS SDK converse against /bedrock", () => {
  test("the reply, stop reason and usage come back; upstream gets a valid SigV4 signature with the session token and the model in the path", async () => {
    const reply = await sdkClient().send(new ConverseCommand({ modelId: MODEL, messages: [userSays("hello bedrock")], inferenceConfig: { maxTokens: 50 } }));
    expect(reply.output?.message?.content?.[0]?.text).toBe("echo: hello bedrock");
    expect(reply.stopReason).toBe("end_turn");
    expect(reply.usage).toMatchObject({ inputTokens: 2, outputTokens: 3, totalTokens: 5 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    expect(sent.auth).toBe("sigv4");
    expect(sent.headers.get("x-amz-security-token")).toBe(AUTH.sessionToken);
    expect(sent.headers.get("authorization")).toContain(`Credential=${AUTH.accessKeyId}/`);
    expect(sent.body.inferenceConfig).toEqual({ maxTokens: 50 });
  });

  test("converseStream: the binary event stream arrives event by event and the SDK decodes it", async () => {
    const reply = await sdkClient().send(new ConverseStreamCommand({ modelId: MODEL, messages: [userSays("stream these four words")] }));
    const { events, text } = await collect(reply.stream);
    expect(text).toBe("echo: stream these four words");
    expect(events[0]?.messageStart?.role).toBe("assistant");
    expect(events.filter((event) => event.contentBlockDelta).length).toBe(5);
    expect(events.find((event) => event.messageStop)?.messageStop?.stopReason).toBe("end_turn");
    expect(events.at(-1)?.metadata?.usage).toMatchObject({ inputTokens: 4, outputTokens: 5 });
    expect(upstream.requests.at(-1)!.action).toBe("converse-stream");
  });

  test("tool use: the model's toolUse comes back, and the toolResult of the next turn reaches the model", async () => {
    const client = sdkClient();
    const toolConfig = { tools: [{ toolSpec: { name: "get_weather", description: "weather by city", inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } } } }] };
    const question = userSays("what is the weather?");
    const first = await client.send(new ConverseCommand({ modelId: MODEL, messages: [question], toolConfig }));
    expect(first.stopReason).toBe("tool_use");
    const toolUse = first.output!.message!.content!.find((block) => block.toolUse)!.toolUse!;
    expect(toolUse).toMatchObject({ name: "get_weather", input: { city: "Paris" } });
    const result: ContentBlock = { toolResult: { toolUseId: toolUse.toolUseId, content: [{ text: "sunny, 24C" }] } };
    const second = await client.send(new ConverseCommand({ modelId: MODEL, messages: [question, first.output!.message!, { role: "user", content: [result] }], toolConfig }));
    expect(second.output?.message?.content?.[0]?.text).toBe("tool said sunny, 24C");
  });

  test("an inference profile ARN as the SDK's modelId reaches Bedrock as the model, encoded in the path", async () => {
    const arn = `arn:aws:bedrock:${AUTH.region}:123456789012:inference-profile/eu.${MODEL}`;
    const reply = await sdkClient().send(new ConverseCommand({ modelId: arn, messages: [userSays("profile call")] }));
    expect(reply.output?.message?.content?.[0]?.text).toBe("echo: profile call");
    expect(upstream.requests.at(-1)!.modelId).toBe(arn);
    expect(upstream.requests.at(-1)!.path).toBe(`/model/${encodeURIComponent(arn)}/converse`);
  });

  test("a key's bedrock_key_config.arn prefix turns the model into an inference profile ARN", async () => {
    await sdkClient().send(new ConverseCommand({ modelId: `bedrock-profile/eu.${MODEL}`, messages: [userSays("prefixed")] }));
    expect(upstream.requests.at(-1)!.modelId).toBe(`arn:aws:bedrock:${AUTH.region}:123456789012:inference-profile/eu.${MODEL}`);
    expect(upstream.requests.at(-1)!.auth).toBe("sigv4");
  });

  test("a key with only a value is a Bedrock API key, sent as a bearer token", async () => {
    const reply = await sdkClient().send(new ConverseCommand({ modelId: `bedrock-apikey/${MODEL}`, messages: [userSays("api key")] }));
    expect(reply.output?.message?.content?.[0]?.text).toBe("echo: api key");
    const sent = upstream.requests.at(-1)!;
    expect(sent.auth).toBe("bearer");
    expect(sent.headers.get("authorization")).toBe(`Bearer ${AUTH.apiKey}`);
  });

  test("a wrong secret key fails Bedrock's signature check: the SDK raises AccessDeniedException with the provider's message", async () => {
    const error = (await sdkClient()
      .send(new ConverseCommand({ modelId: `bedrock-wrong-secret/${MODEL}`, messages: [userSays("denied")] }))
      .catch((caught: unknown) => caught)) as Error & { $metadata: { httpStatusCode: number }; extra_fields: { error_type: string } };
    expect(error.name).toBe("AccessDeniedException");
    expect(error.$metadata.httpStatusCode).toBe(403);
    expect(error.message).toContain("signature we calculated does not match");
    expect(error.extra_fields.error_type).toBe("provider_auth_failed");
    expect(JSON.stringify(error)).not.toContain(AUTH.secretAccessKey);
  });

  test("fallbacks ride in x-gw-fallbacks: when the primary fails, the next model answers", async () => {
    const client = sdkClient();
    client.middlewareStack.add(
      (next) => (args) => {
        (args.request as { headers: Record<string, string> }).headers["x-gw-fallbacks"] = `bedrock/${MODEL}`;
        return next(args);
      },
      { step: "build", name: "gatewayFallbacks" },
    );
    const reply = await client.send(new ConverseCommand({ modelId: `bedrock-wrong-secret/${MODEL}`, messages: [userSays("second chance")] }));
    expect(reply.output?.message?.content?.[0]?.text).toBe("echo: second chance");
    expect(upstream.requests.at(-1)!.headers.get("authorization")).toContain(`Credential=${AUTH.accessKeyId}/`);
  });

  test("a body without messages is a 400 naming the field, before any upstream call", async () => {
    const before = upstream.requests.length;
    const response = await fetch(`${gw.url}/bedrock/model/${MODEL}/converse`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ inferenceConfig: { maxTokens: 5 } }) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { param: string } };
    expect(body.error.param).toBe("messages");
    expect(upstream.requests.length).toBe(before);
  });

  test("/litellm/bedrock serves the same API", async () => {
    const reply = await sdkClient("/litellm/bedrock").send(new ConverseCommand({ modelId: MODEL, messages: [userSays("via litellm")] }));
    expect(reply.output?.message?.content?.[0]?.text).toBe("echo: via litellm");
  });
});

describe("InvokeModel passes the model's own body through", () => {
  const anthropicBody = { anthropic_version: "bedrock-2023-05-31", max_tokens: 20, messages: [{ role: "user", content: "raw native call" }] };

  test("invoke: the body reaches Bedrock unchanged and the model's answer comes back as is", async () => {
    const reply = await sdkClient().send(new InvokeModelCommand({ modelId: MODEL, contentType: "application/json", body: JSON.stringify(anthropicBody) }));
    const answer = JSON.parse(new TextDecoder().decode(reply.body)) as { content: Array<{ text: string }>; model: string };
    expect(answer.content[0]!.text).toBe("echo: raw native call");
    expect(answer.model).toBe(MODEL);
    expect(upstream.requests.at(-1)!.body).toEqual(anthropicBody);
    expect(upstream.requests.at(-1)!.action).toBe("invoke");
  });

  test("invoke-with-response-stream: chunk events pass through and the SDK decodes them", async () => {
    const reply = await sdkClient().send(new InvokeModelWithResponseStreamCommand({ modelId: MODEL, body: JSON.stringify(anthropicBody) }));
    let text = "";
    for await (const event of reply.body ?? []) {
      const chunk = JSON.parse(new TextDecoder().decode(event.chunk?.bytes)) as { type: string; delta?: { text: string } };
      if (chunk.type === "content_block_delta") text += chunk.delta!.text;
    }
    expect(text).toBe("echo: raw native call");
  });

  test("invoke is Bedrock's own: another provider's model is a 400", async () => {
    const response = await fetch(`${gw.url}/bedrock/model/openai%2Fgpt-4o/invoke`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(anthropicBody) });
    expect(response.status).toBe(400);
  });
});
