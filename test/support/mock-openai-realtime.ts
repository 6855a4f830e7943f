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

/** A call (WebRTC, SIP) as the mock's call control saw it: each action, with its body. */
interface CallActions {
  actions: Array<{ action: string; body: Record<string, unknown> }>;
}

export interface MockOpenAIRealtime {
  /** The server's root: Azure's paths (`/openai/v1/realtime`) are under it too. */
  url: string;
  baseUrl: string;
  connections: Connection[];
  /** Calls by id, as accepted, referred, rejected or hung up through `/v1/realtime/calls/{id}/…`. */
  calls: Map<string, CallActions>;
  /** Responses wait for `release()` before their deltas and `response.done`. */
  holdResponses: boolean;
  /** Audio tokens each response reports besides its text ones, as a spoken exchange would. */
  audioTokens: { input: number; output: number };
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

export function startMockOpenAIRealtime(apiKey: string): MockOpenAIRealtime {
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
      input_token_details: { text_tokens: textIn, audio_tokens: audio.input, cached_tokens: 0 },
      output_token_details: { text_tokens: textOut, audio_tokens: audio.output },
    };
    send(socket, { type: "response.done", response: { ...base, status: cancelled ? "cancelled" : "completed", status_details: null, output: cancelled ? [] : [item], usage } });
  }

  const server = Bun.serve<Connection>({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request, bunServer) {
      const url = new URL(request.url);
      const control = /\/v1\/realtime\/calls\/([\w-]+)\/(accept|hangup|refer|reject)$/.exec(url.pathname);
      if (control && request.method === "POST") {
        const [, callId, action] = control;
        const calls = mock.calls.get(callId!) ?? { actions: [] };
        calls.actions.push({ action: action!, body: (await request.json().catch(() => ({}))) as Record<string, unknown> });
        mock.calls.set(callId!, calls);
        // OpenAI answers call control with an empty 200.
        return new Response(null, { status: 200 });
      }
      if (!url.pathname.endsWith("/v1/realtime")) return Response.json({ error: { message: "no such route", type: "invalid_request_error" } }, { status: 404 });
      // OpenAI takes the key as a bearer, Azure as `api-key`.
      if (request.headers.get("authorization") !== `Bearer ${apiKey}` && request.headers.get("api-key") !== apiKey) return Response.json({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }, { status: 401 });
      const callId = url.searchParams.get("call_id") ?? undefined;
      // A sideband connection joins a call, which runs the model it was accepted with.
      const accepted = callId ? mock.calls.get(callId)?.actions.find((entry) => entry.action === "accept")?.body.model : undefined;
      const model = url.searchParams.get("model") ?? (typeof accepted === "string" ? accepted : undefined);
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
