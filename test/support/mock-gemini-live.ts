/**
 * A mock of Gemini's Live API: the WebSocket at
 * `/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent`, its key in the
 * `x-goog-api-key` header (or the `key` query parameter, as the SDK sends it), and Vertex AI's at
 * `/ws/google.cloud.aiplatform.v1.LlmBidiService/BidiGenerateContent`, the same key as a bearer;
 * and the ephemeral tokens a browser opens a session with (`POST /v1alpha/auth_tokens`). It speaks the real
 * protocol, in binary frames as Gemini sends them: the first message must be `setup` (answered
 * `setupComplete`); each client turn (`clientContent` with `turnComplete`, or `realtimeInput`
 * text) is answered `echo: <text>` in two `modelTurn` parts, then `generationComplete`, then
 * `turnComplete` with the turn's `usageMetadata`. Asked about the weather with a function
 * declared, it calls the function first and answers once `toolResponse` comes.
 */

export interface LiveConnection {
  model: string;
  key: string | null;
  /** Every message the client sent, parsed. */
  received: Array<Record<string, unknown>>;
  closed?: { code: number; reason: string };
}

export interface MockGeminiLive {
  url: string;
  /** The API root to configure as the `gemini` provider's base_url. */
  baseUrl: string;
  /** The API root to configure as a `vertex` provider's base_url. */
  vertexBaseUrl: string;
  connections: LiveConnection[];
  /** Audio tokens each turn reports besides its text ones. */
  audioTokens: { input: number; output: number };
  /** The ephemeral tokens minted (`POST /v1alpha/auth_tokens`), with what each was asked for. */
  tokens: Array<Record<string, unknown>>;
  stop(): void;
}

const encoder = new TextEncoder();
const GEMINI_PATH = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent";
const VERTEX_PATH = "/ws/google.cloud.aiplatform.v1.LlmBidiService/BidiGenerateContent";
const countTokens = (text: string) => Math.max(1, text.split(/\s+/).filter(Boolean).length);

export function startMockGeminiLive(apiKey: string): MockGeminiLive {
  const send = (socket: Bun.ServerWebSocket<LiveConnection>, message: unknown) => socket.send(encoder.encode(JSON.stringify(message)));

  function answer(socket: Bun.ServerWebSocket<LiveConnection>, text: string, tools: boolean) {
    if (tools && /weather/i.test(text)) {
      send(socket, { toolCall: { functionCalls: [{ id: "call_live_1", name: "get_weather", args: { city: "Paris" } }] } });
      return;
    }
    const reply = `echo: ${text}`;
    const [head, tail] = [reply.slice(0, 6), reply.slice(6)];
    send(socket, { serverContent: { modelTurn: { parts: [{ text: head }] } } });
    send(socket, { serverContent: { modelTurn: { parts: [{ text: tail }] } } });
    send(socket, { serverContent: { generationComplete: true } });
    const [textIn, textOut] = [countTokens(text), countTokens(reply)];
    const { input, output } = mock.audioTokens;
    const usageMetadata = {
      promptTokenCount: textIn + input,
      responseTokenCount: textOut + output,
      totalTokenCount: textIn + input + textOut + output,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: textIn }, ...(input ? [{ modality: "AUDIO", tokenCount: input }] : [])],
      responseTokensDetails: [{ modality: "TEXT", tokenCount: textOut }, ...(output ? [{ modality: "AUDIO", tokenCount: output }] : [])],
    };
    send(socket, { serverContent: { turnComplete: true }, usageMetadata });
  }

  /** An ephemeral token, as the API mints one for the key that asks. */
  async function authToken(request: Request): Promise<Response> {
    if (request.headers.get("x-goog-api-key") !== apiKey) return Response.json({ error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } }, { status: 400 });
    const body = (await request.json()) as Record<string, unknown>;
    const token = { name: `auth_tokens/${crypto.randomUUID().replaceAll("-", "")}`, ...body };
    mock.tokens.push(token);
    return Response.json(token);
  }

  const server = Bun.serve<LiveConnection>({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request, bunServer) {
      const url = new URL(request.url);
      if (url.pathname === "/v1alpha/auth_tokens" && request.method === "POST") return authToken(request);
      const onVertex = url.pathname === VERTEX_PATH;
      if (url.pathname !== GEMINI_PATH && !onVertex) return new Response("not found", { status: 404 });
      const key = onVertex ? (request.headers.get("authorization")?.replace(/^Bearer /, "") ?? null) : (request.headers.get("x-goog-api-key") ?? url.searchParams.get("key"));
      if (key !== apiKey) return new Response("API key not valid", { status: 403 });
      const connection: LiveConnection = { model: "", key, received: [] };
      mock.connections.push(connection);
      return bunServer.upgrade(request, { data: connection }) ? undefined : new Response("upgrade failed", { status: 400 });
    },
    websocket: {
      message(socket, raw) {
        const message = JSON.parse(typeof raw === "string" ? raw : new TextDecoder().decode(raw)) as Record<string, Record<string, unknown>>;
        const connection = socket.data;
        connection.received.push(message);
        if (!connection.model) {
          if (!message.setup || typeof message.setup.model !== "string") {
            socket.close(1007, "the first message must be setup, naming the model");
            return;
          }
          connection.model = message.setup.model;
          send(socket, { setupComplete: {} });
          return;
        }
        const tools = Array.isArray((connection.received[0]!.setup as { tools?: unknown }).tools);
        if (message.clientContent?.turnComplete) {
          const turns = (message.clientContent.turns ?? []) as Array<{ parts?: Array<{ text?: string }> }>;
          answer(socket, turns.flatMap((turn) => turn.parts ?? []).map((part) => part.text ?? "").join(" "), tools);
        } else if (typeof (message.realtimeInput as { text?: unknown } | undefined)?.text === "string") {
          answer(socket, String((message.realtimeInput as { text: string }).text), tools);
        } else if (message.toolResponse) {
          const [response] = (message.toolResponse.functionResponses ?? []) as Array<{ response?: { output?: unknown } }>;
          answer(socket, `tool said ${JSON.stringify(response?.response?.output ?? null)}`, false);
        }
      },
      close(socket, code, reason) {
        socket.data.closed = { code, reason };
      },
    },
  });

  const mock: MockGeminiLive = {
    url: `http://127.0.0.1:${server.port}`,
    baseUrl: `http://127.0.0.1:${server.port}/v1beta`,
    vertexBaseUrl: `http://127.0.0.1:${server.port}/v1`,
    connections: [],
    audioTokens: { input: 0, output: 0 },
    tokens: [],
    stop: () => server.stop(true),
  };
  return mock;
}
