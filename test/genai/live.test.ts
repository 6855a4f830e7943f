import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GoogleGenAI, type LiveServerMessage, Modality, type Session } from "@google/genai";
import { createVirtualKey } from "../governance/support";
import { eventually } from "../support/eventually";
import { loggedRequest } from "../support/logged-request";
import { startGateway, type TestGateway } from "../support/gateway";
import { type MockGeminiLive, startMockGeminiLive } from "../support/mock-gemini-live";

/**
 * Gemini's Live API through the gateway, driven by `@google/genai`'s `ai.live.connect()`: the
 * session opens on the gateway's key, each message passes both ways, and each turn the model
 * takes is governed, logged and priced like a request.
 */

const UPSTREAM_KEY = "gemini-live-upstream-key";
const MODEL = "gemini-live-2.5-flash-preview";

let upstream: MockGeminiLive;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockGeminiLive(UPSTREAM_KEY);
  gw = await startGateway({
    providers: {
      gemini: { keys: [{ id: "live", value: UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl } },
      vertex: { keys: [{ id: "vertex-live", value: UPSTREAM_KEY, vertex_key_config: { project_id: "proj-live", region: "europe-west4" } }], network_config: { base_url: upstream.vertexBaseUrl } },
      anthropic: { keys: [{ id: "claude", value: "sk-ant-unused" }], network_config: { base_url: "http://127.0.0.1:9/v1" } },
    },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** A Live session through the gateway, with what it has received and a way to wait for more. */
async function connect(apiKey = "unused", model = MODEL, config: Record<string, unknown> = {}) {
  const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: `${gw.url}/genai` } });
  const messages: LiveServerMessage[] = [];
  const closed = Promise.withResolvers<CloseEvent>();
  let isClosed = false;
  let wake = () => {};
  const session: Session = await ai.live.connect({
    model,
    config: { responseModalities: [Modality.TEXT], ...config },
    callbacks: {
      onmessage: (message) => {
        messages.push(message);
        wake();
      },
      onclose: (event) => {
        isClosed = true;
        closed.resolve(event);
        wake();
      },
    },
  });
  let read = 0;
  /** The next message, from where the last wait left off, that `matches`; the messages up to it are taken. */
  async function until(matches: (message: LiveServerMessage) => unknown): Promise<LiveServerMessage[]> {
    for (;;) {
      const found = messages.findIndex((message, index) => index >= read && matches(message));
      if (found >= 0) return messages.slice(read, (read = found + 1));
      if (isClosed) throw new Error("the session closed first");
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  /** The messages up to the end of the next turn. */
  const turn = () => until((message) => message.serverContent?.turnComplete);
  return { session, closed: closed.promise, until, turn };
}

const textOf = (messages: LiveServerMessage[]) => messages.flatMap((message) => message.serverContent?.modelTurn?.parts ?? []).map((part) => part.text ?? "").join("");
const logsOf = async (objects: string, extra = "") => ((await (await gw.admin(`/api/logs?objects=${objects}${extra}&order=asc`)).json()) as { logs: Array<Record<string, unknown>> }).logs;

describe("a Gemini Live session through the gateway", () => {
  test("answers the SDK's turns, on the provider's socket opened with the gateway's key and the provider's model", async () => {
    const live = await connect();
    live.session.sendClientContent({ turns: "hello there", turnComplete: true });
    expect(textOf(await live.turn())).toBe("echo: hello there");
    live.session.sendRealtimeInput({ text: "and again" });
    expect(textOf(await live.turn())).toBe("echo: and again");
    const connection = upstream.connections.at(-1)!;
    expect(connection.key).toBe(UPSTREAM_KEY);
    expect(connection.model).toBe(`models/${MODEL}`);
    live.session.close();
    await live.closed;
  });

  test("on Vertex AI, with its bearer and the model's full resource name", async () => {
    const live = await connect("unused", "vertex/gemini-live-2.5-flash");
    live.session.sendClientContent({ turns: "hello vertex", turnComplete: true });
    expect(textOf(await live.turn())).toBe("echo: hello vertex");
    expect(upstream.connections.at(-1)!.model).toBe("projects/proj-live/locations/europe-west4/publishers/google/models/gemini-live-2.5-flash");
    live.session.close();
    await live.closed;
  });

  test("each turn is logged and priced with its audio at the model's rates, under the session's id", async () => {
    upstream.audioTokens = { input: 1_000, output: 2_000 };
    try {
      const live = await connect("unused", "gemini/gemini-2.5-flash-native-audio-preview-09-2025");
      live.session.sendClientContent({ turns: "one two three", turnComplete: true });
      await live.turn();
      live.session.close();
      await live.closed;
      const [session] = await eventually(() => logsOf("live.session", "&models=gemini-2.5-flash-native-audio-preview-09-2025"), (logs) => logs.length > 0);
      const [turn] = await eventually(() => logsOf("live.turn", `&session_id=${session!.session_id}`), (logs) => logs.length > 0);
      // Three words in, "echo: one two three" (four) out; text 0.5e-6 and 2e-6, audio 3e-6 and 12e-6 a token.
      expect(turn).toMatchObject({ status: "success", provider: "gemini", selected_key_id: "live", input_tokens: 1_003, output_tokens: 2_004 });
      expect(turn!.cost as number).toBeCloseTo(3 * 0.5e-6 + 1_000 * 3e-6 + 4 * 2e-6 + 2_000 * 12e-6, 12);
      expect(session).toMatchObject({ status: "success", total_tokens: 0 });
    } finally {
      upstream.audioTokens = { input: 0, output: 0 };
    }
  });

  test("a function call and its response make one turn, logged with the function's name", async () => {
    const weather = { functionDeclarations: [{ name: "get_weather", description: "Current weather", parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } } }] };
    const live = await connect("unused", MODEL, { tools: [weather] });
    live.session.sendClientContent({ turns: "what is the weather?", turnComplete: true });
    const call = (await live.until((message) => message.toolCall)).at(-1)!.toolCall!;
    live.session.sendToolResponse({ functionResponses: [{ id: call.functionCalls![0]!.id, name: "get_weather", response: { output: "sunny" } }] });
    expect(textOf(await live.turn())).toBe('echo: tool said "sunny"');
    live.session.close();
    const turns = await eventually(() => logsOf("live.turn", `&tool_call_names=get_weather`), (logs) => logs.length > 0);
    expect(turns[0]).toMatchObject({ status: "success" });
  });

  test("a virtual key past its request limit has its session closed with the reason, and the refused turn logged", async () => {
    const key = await createVirtualKey(gw, { name: "live limited", rate_limit: { request_max_limit: 2, request_reset_duration: "1h" } });
    const live = await connect(key.value);
    live.session.sendClientContent({ turns: "first", turnComplete: true });
    expect(textOf(await live.turn())).toBe("echo: first");
    live.session.sendClientContent({ turns: "second", turnComplete: true });
    const closed = await live.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toContain("limit");
    const refused = await eventually(() => logsOf("live.turn", `&virtual_key_ids=${key.id}`), (logs) => logs.some((log) => log.status === "error"));
    expect(refused.map((log) => log.status)).toEqual(["success", "error"]);
    // The session itself is logged too, once its sockets are closed.
    await eventually(() => logsOf("live.session", `&virtual_key_ids=${key.id}`), (logs) => logs.length === 1 && logs[0]!.status === "success");
  });

  test("a model of a provider without a Live API, or a virtual key not known, closes the session with 1008 and why", async () => {
    /** How a setup the gateway refuses ends: `connect()` waits for a setupComplete that never comes, the socket closes. */
    const refusal = (apiKey: string, model: string) => {
      const closed = Promise.withResolvers<CloseEvent>();
      const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: `${gw.url}/genai` } });
      void ai.live.connect({ model, config: { responseModalities: [Modality.TEXT] }, callbacks: { onmessage: () => {}, onclose: (event) => closed.resolve(event) } });
      return closed.promise;
    };
    const elsewhere = await refusal("unused", "anthropic/claude-sonnet-4-5");
    expect(elsewhere.code).toBe(1008);
    expect(elsewhere.reason).toContain("anthropic");
    const stranger = await refusal("sk-gw-not-a-key", MODEL);
    expect(stranger.code).toBe(1008);
    expect(stranger.reason).toContain("virtual key");
  });
});

test("an ephemeral token for a browser is minted with the gateway's key, and logged", async () => {
  const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl: `${gw.url}/genai`, apiVersion: "v1alpha", headers: { "x-gw-metadata-case": "live-token" } } });
  const token = await ai.authTokens.create({ config: { uses: 1, liveConnectConstraints: { model: MODEL } } });
  expect(token.name).toStartWith("auth_tokens/");
  expect(upstream.tokens.at(-1)).toMatchObject({ name: token.name, uses: 1 });
  expect(await loggedRequest(gw, "live-token")).toMatchObject({ object: "gemini_auth_token.create", provider: "gemini", selected_key_id: "live", status: "success" });
});
