import type { ServerWebSocket } from "bun";
import { countTokens } from "./mock-openai";

/**
 * A mock of OpenAI's Realtime API (`wss://…/v1/realtime?model=…`, Azure's under `/openai`) in its
 * wire format: a bearer key (Azure's `api-key`) on the handshake, `session.created` on open, then `session.update`, `conversation.item.create`
 * and `response.create` answered as OpenAI answers them. A response echoes the last user text as
 * text deltas and ends with `response.done` carrying usage; `response.cancel` cancels one in flight
 * (the mock holds each response back until `release`, when `holdResponses` is set).
 */

interface Connection {
  path: string;
  model: string;
  /** Set for a call's sideband connection (`?call_id=`). */
  callId?: string;
  headers: Headers;
  /** The client events the mock received, in order. */
  received: Array<{ type: string; [field: string]: unknown }>;
  items: Array<{ role?: string; content?: Array<{ type: string; text?: string }> }>;
  closed?: { code: number; reason: string };
}

/** A call (WebRTC, SIP) as the mock saw it: each action (`create` for a WebRTC offer), with its body, and the key whose project has it. */
interface CallActions {
  actions: Array<{ action: string; body: Record<string, unknown> }>;
  project?: string;
  /** A WebRTC call's offer, as it came. */
  offer?: { contentType: string; sdp: string };
}

export interface MockOpenAIRealtime {
  /** The server's root: Azure's paths (`/openai/v1/realtime`) are under it too. */
  url: string;
  baseUrl: string;
  connections: Connection[];
  /** Calls by id, as created from an offer, accepted, referred, rejected or hung up through `/v1/realtime/calls[/{id}/…]`. */
  calls: Map<string, CallActions>;
  /** Each key is a project of its own: a call's sideband opens only with the key that created the call. */
  keysAreProjects: boolean;
  /** Responses wait for `release()` before their deltas and `response.done`. */
  holdResponses: boolean;
  /** Audio tokens each response reports besides its text ones, as a spoken exchange would; `cached` of the input's were read from the cache. */
  audioTokens: { input: number; output: number; cached?: number };
  release(): void;
  /** Closes every open session from the provider's side. */
  closeAll(code: number, reason: string): void;
  /** Sends every open session a message as it is, well-formed or not. */
  sendRaw(message: string): void;
  stop(): void;
}

type Socket = ServerWebSocket<Connection>;

const eventId = () => `event_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
const send = (socket: Socket, event: Record<string, unknown>) => socket.send(JSON.stringify({ type: event.type, event_id: eventId(), ...event }));

function lastUserText(connection: Connection): string {
  const item = connection.items.findLast((candidate) => candidate.role === "user");
  return item?.content?.map((part) => part.text ?? "").join("") ?? "";
}

/** The answer to a WebRTC offer: SDP of the mock's own, naming the call. */
const sdpAnswer = (callId: string) => `v=0\r\no=- ${callId} 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n`;

/** A WebRTC offer: SDP alone (`application/sdp`), or a form of `sdp` and `session` (JSON). */
async function offerOf(request: Request): Promise<{ contentType: string; sdp: string; session: Record<string, unknown> }> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!contentType.startsWith("multipart/form-data")) return { contentType, sdp: await request.text(), session: {} };
  const form = await request.formData();
  return { contentType, sdp: String(form.get("sdp") ?? ""), session: JSON.parse(String(form.get("session") ?? "{}")) as Record<string, unknown> };
}

export function startMockOpenAIRealtime(...apiKeys: string[]): MockOpenAIRealtime {
  const sockets = new Set<Socket>();
  const held: Array<() => void> = [];

  async function respond(socket: Socket) {
    const connection = socket.data;
    const id = `resp_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    const text = `echo: ${lastUserText(connection)}`;
    const base = { id, object: "realtime.response", conversation_id: "conv_mock", output_modalities: ["text"], metadata: null };
    send(socket, { type: "response.created", response: { ...base, status: "in_progress", status_details: null, output: [], usage: null } });
    if (mock.holdResponses) await new Promise<void>((resolve) => held.push(resolve));
    const cancelled = connection.received.some((event) => event.type === "response.cancel" && event.response_id === id);
    const item = { id: "item_mock_1", object: "realtime.item", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text }] };
    if (!cancelled) {
      send(socket, { type: "response.output_item.added", response_id: id, output_index: 0, item: { ...item, status: "in_progress", content: [] } });
      for (const word of text.split(/(?<= )/)) send(socket, { type: "response.output_text.delta", response_id: id, item_id: item.id, output_index: 0, content_index: 0, delta: word });
      send(socket, { type: "response.output_text.done", response_id: id, item_id: item.id, output_index: 0, content_index: 0, text });
      send(socket, { type: "response.output_item.done", response_id: id, output_index: 0, item });
    }
    const textIn = countTokens(lastUserText(connection));
    const textOut = cancelled ? 0 : countTokens(text);
    const audio = mock.audioTokens;
    const usage = {
      total_tokens: textIn + audio.input + textOut + audio.output,
      input_tokens: textIn + audio.input,
      output_tokens: textOut + audio.output,
      input_token_details: { text_tokens: textIn, audio_tokens: audio.input, cached_tokens: audio.cached ?? 0, cached_tokens_details: { text_tokens: 0, audio_tokens: audio.cached ?? 0 } },
      output_token_details: { text_tokens: textOut, audio_tokens: audio.output },
    };
    send(socket, { type: "response.done", response: { ...base, status: cancelled ? "cancelled" : "completed", status_details: null, output: cancelled ? [] : [item], usage } });
  }

  const server = Bun.serve<Connection>({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request, bunServer) {
      const url = new URL(request.url);
      // OpenAI takes the key as a bearer, Azure as `api-key`.
      const key = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? request.headers.get("api-key") ?? "";
      if (!apiKeys.includes(key)) return Response.json({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }, { status: 401 });
      if (url.pathname.endsWith("/v1/realtime/calls") && request.method === "POST") {
        const { contentType, sdp, session } = await offerOf(request);
        if (!sdp.startsWith("v=0")) return Response.json({ error: { message: "Invalid SDP offer.", type: "invalid_request_error", param: "sdp" } }, { status: 400 });
        const callId = `rtc_${crypto.randomUUID().replaceAll("-", "")}`;
        mock.calls.set(callId, { actions: [{ action: "create", body: session }], project: key, offer: { contentType, sdp } });
        return new Response(sdpAnswer(callId), { status: 201, headers: { "content-type": "application/sdp", location: `/v1/realtime/calls/${callId}` } });
      }
      const control = /\/v1\/realtime\/calls\/([\w-]+)\/(accept|hangup|refer|reject)$/.exec(url.pathname);
      if (control && request.method === "POST") {
        const [, callId, action] = control;
        const calls = mock.calls.get(callId!) ?? { actions: [], project: key };
        calls.actions.push({ action: action!, body: (await request.json().catch(() => ({}))) as Record<string, unknown> });
        mock.calls.set(callId!, calls);
        // OpenAI answers call control with an empty 200.
        return new Response(null, { status: 200 });
      }
      if (!url.pathname.endsWith("/v1/realtime")) return Response.json({ error: { message: "no such route", type: "invalid_request_error" } }, { status: 404 });
      const callId = url.searchParams.get("call_id") ?? undefined;
      const call = callId ? mock.calls.get(callId) : undefined;
      if (callId && (!call || (mock.keysAreProjects && call.project !== key))) return Response.json({ error: { message: `Call ${callId} not found.`, type: "invalid_request_error" } }, { status: 404 });
      // A sideband connection joins a call, which runs the model it was created or accepted with (OpenAI's default when none).
      const callModel = call?.actions.map((entry) => entry.body.model).find((named) => typeof named === "string");
      const model = url.searchParams.get("model") ?? (call ? (typeof callModel === "string" ? callModel : "gpt-realtime") : undefined);
      if (!model) return Response.json({ error: { message: "Missing required parameter: 'model'.", type: "invalid_request_error" } }, { status: 400 });
      const connection: Connection = { path: url.pathname, model, callId, headers: request.headers, received: [], items: [] };
      mock.connections.push(connection);
      return bunServer.upgrade(request, { data: connection }) ? undefined : new Response("upgrade failed", { status: 400 });
    },
    websocket: {
      open(socket) {
        sockets.add(socket);
        send(socket, { type: "session.created", session: { id: `sess_${crypto.randomUUID().slice(0, 8)}`, object: "realtime.session", type: "realtime", model: socket.data.model, output_modalities: ["audio"], instructions: "" } });
      },
      message(socket, raw) {
        const event = JSON.parse(String(raw)) as Connection["received"][number];
        socket.data.received.push(event);
        if (event.type === "session.update") send(socket, { type: "session.updated", session: { object: "realtime.session", type: "realtime", model: socket.data.model, ...(event.session as object) } });
        if (event.type === "conversation.item.create") {
          socket.data.items.push(event.item as Connection["items"][number]);
          send(socket, { type: "conversation.item.added", previous_item_id: null, item: { id: `item_${socket.data.items.length}`, status: "completed", ...(event.item as object) } });
        }
        if (event.type === "response.create") void respond(socket);
      },
      close(socket, code, reason) {
        sockets.delete(socket);
        socket.data.closed = { code, reason };
      },
    },
  });

  const mock: MockOpenAIRealtime = {
    url: `http://127.0.0.1:${server.port}`,
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    connections: [],
    calls: new Map(),
    keysAreProjects: false,
    holdResponses: false,
    audioTokens: { input: 0, output: 0 },
    release: () => {
      for (const resolve of held.splice(0)) resolve();
    },
    closeAll(code, reason) {
      for (const socket of sockets) socket.close(code, reason);
    },
    sendRaw(message) {
      for (const socket of sockets) socket.send(message);
    },
    stop: () => server.stop(true),
  };
  return mock;
}
