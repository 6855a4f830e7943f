import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { RealtimeServerEvent } from "openai/resources/realtime/realtime";
import { OpenAIRealtimeWebSocket } from "openai/realtime/websocket";
import { createVirtualKey } from "../governance/support";
import { expectGatewayError } from "../support/gateway-error";
import { startGateway, type TestGateway } from "../support/gateway";
import { eventually } from "../support/eventually";
import { loggedRequest } from "../support/logged-request";
import { startMockOpenAI } from "../support/mock-openai";
import { type MockOpenAIRealtime, startMockOpenAIRealtime } from "../support/mock-openai-realtime";

/**
 * The Realtime API through the gateway: OpenAI's SDK opens its WebSocket on `/v1/realtime`, the
 * gateway opens the provider's with its own key and relays every event; each response is
 * governed, logged and charged with its usage, and so is the session.
 */

const UPSTREAM_KEY = "sk-realtime-upstream-0001";
let upstream: MockOpenAIRealtime;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAIRealtime(UPSTREAM_KEY);
  gw = await startGateway({ providers: { openai: { keys: [{ id: "rt", value: UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl } } } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** The SDK's Realtime socket on the gateway (plain ws: the SDK writes wss), with every server event kept for `next`. */
async function openSession(apiKey = "unused", model = "openai/gpt-realtime", gateway = gw) {
  const socket = new OpenAIRealtimeWebSocket({ model, onURL: (url) => (url.protocol = "ws:") }, new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey }));
  const events: RealtimeServerEvent[] = [];
  const errors: string[] = [];
  let wake = () => {};
  socket.on("event", (event) => {
    events.push(event);
    wake();
  });
  socket.on("error", (error) => {
    errors.push(error.message);
    wake();
  });
  /** The next event of `type`, the events before it skipped. */
  const next = async <Type extends RealtimeServerEvent["type"]>(type: Type): Promise<Extract<RealtimeServerEvent, { type: Type }>> => {
    for (;;) {
      const index = events.findIndex((event) => event.type === type);
      if (index >= 0) return events.splice(0, index + 1).at(-1) as Extract<RealtimeServerEvent, { type: Type }>;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  await next("session.created");
  const ask = (text: string) => {
    socket.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text }] } });
    socket.send({ type: "response.create" });
  };
  return { socket, next, ask, errors };
}

/** The logs of `object` (every Realtime one for `realtime`), oldest first. */
const logsOfSession = async (object: string, extra = "") => {
  const objects = object === "realtime" ? "realtime.session,realtime.response" : object;
  return ((await (await gw.admin(`/api/logs?objects=${objects}${extra}&order=asc`)).json()) as { logs: Array<Record<string, unknown>> }).logs;
};

describe("a Realtime session through the gateway", () => {
  test("relays the SDK's events both ways, on the provider's socket opened with the gateway's key", async () => {
    const session = await openSession();
    session.socket.send({ type: "session.update", session: { type: "realtime", instructions: "be brief" } });
    expect((await session.next("session.updated")).session).toMatchObject({ instructions: "be brief" });
    session.ask("hello there");
    const deltas: string[] = [];
    session.socket.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const done = await session.next("response.done");
    expect(deltas.join("")).toBe("echo: hello there");
    expect(done.response.status).toBe("completed");
    const connection = upstream.connections.at(-1)!;
    expect(connection.model).toBe("gpt-realtime");
    expect(connection.headers.get("authorization")).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(connection.headers.get("sec-websocket-protocol") ?? "").not.toContain("openai-insecure-api-key");
    expect(connection.received.map((event) => event.type)).toEqual(["session.update", "conversation.item.create", "response.create"]);
    session.socket.close();
    await eventually(async () => connection.closed, (closed) => closed !== undefined);
  });

  test("each response is logged with its usage and content, and the session when it ends, all under one session id", async () => {
    // A model of this test's own tells its logs from the other tests'.
    const session = await openSession("unused", "openai/gpt-realtime-logged");
    session.ask("first question");
    const first = await session.next("response.done");
    session.ask("second question");
    const second = await session.next("response.done");
    session.socket.close();
    const sessions = await eventually(() => logsOfSession("realtime.session", "&models=gpt-realtime-logged"), (logs) => logs.length > 0);
    const sessionId = sessions[0]!.session_id as string;
    const responses = await eventually(() => logsOfSession("realtime.response", `&session_id=${sessionId}`), (logs) => logs.length === 2);
    for (const [index, done] of [first, second].entries()) {
      expect(responses[index]).toMatchObject({ status: "success", provider: "openai", model: "gpt-realtime-logged", selected_key_id: "rt", input_tokens: done.response.usage!.input_tokens, output_tokens: done.response.usage!.output_tokens });
    }
    const detail = (await (await gw.admin(`/api/logs/${responses[1]!.id}`)).json()) as { response_content: string };
    expect(detail.response_content).toBe("echo: second question");
    expect(sessions).toEqual([expect.objectContaining({ status: "success", total_tokens: 0 })]);
  });

  test("a response is priced with its audio at the model's audio rates", async () => {
    upstream.audioTokens = { input: 1_000, output: 2_000 };
    try {
      const session = await openSession("unused", "openai/gpt-realtime-priced");
      session.ask("spoken question");
      const { usage } = (await session.next("response.done")).response;
      session.socket.close();
      const [logged] = await eventually(() => logsOfSession("realtime.response", "&models=gpt-realtime-priced"), (logs) => logs.length > 0);
      // gpt-realtime's list prices per token: text 4e-6 in and 16e-6 out, audio 32e-6 in and 64e-6 out.
      const textIn = usage!.input_token_details!.text_tokens!;
      const textOut = usage!.output_token_details!.text_tokens!;
      expect(logged!.cost as number).toBeCloseTo(textIn * 4e-6 + 1_000 * 32e-6 + textOut * 16e-6 + 2_000 * 64e-6, 12);
      expect(logged).toMatchObject({ input_tokens: textIn + 1_000, output_tokens: textOut + 2_000 });
    } finally {
      upstream.audioTokens = { input: 0, output: 0 };
    }
  });

  test("cached audio is priced once, at the model's cached audio rate", async () => {
    upstream.audioTokens = { input: 1_000, output: 0, cached: 600 };
    try {
      const session = await openSession("unused", "openai/gpt-realtime-mini-cached");
      session.ask("a question heard before");
      const { usage } = (await session.next("response.done")).response;
      session.socket.close();
      const [logged] = await eventually(() => logsOfSession("realtime.response", "&models=gpt-realtime-mini-cached"), (logs) => logs.length > 0);
      // gpt-realtime-mini: text 0.6e-6 in and 2.4e-6 out, audio 10e-6 in, cached audio 0.3e-6.
      const textIn = usage!.input_token_details!.text_tokens!;
      const textOut = usage!.output_token_details!.text_tokens!;
      expect(logged!.cost as number).toBeCloseTo(textIn * 0.6e-6 + 400 * 10e-6 + 600 * 0.3e-6 + textOut * 2.4e-6, 12);
    } finally {
      upstream.audioTokens = { input: 0, output: 0 };
    }
  });

  test("a virtual key in the SDK's subprotocol governs it: a response beyond its rate limit is cancelled and the client told why", async () => {
    // Opening the session is one request, the first response another: the second is one too many.
    const key = await createVirtualKey(gw, { name: "realtime-two", rate_limit: { request_max_limit: 2, request_reset_duration: "1h" } });
    const session = await openSession(key.value);
    session.ask("within the limit");
    expect((await session.next("response.done")).response.status).toBe("completed");
    upstream.holdResponses = true;
    try {
      session.ask("beyond the limit");
      const created = await session.next("response.created");
      await eventually(async () => session.errors, (errors) => errors.length > 0);
      expect(session.errors[0]).toMatch(/limit/i);
      upstream.release();
      expect((await session.next("response.done")).response).toMatchObject({ id: created.response.id, status: "cancelled" });
      expect(upstream.connections.at(-1)!.received.at(-1)).toEqual({ type: "response.cancel", response_id: created.response.id! });
    } finally {
      upstream.holdResponses = false;
      session.socket.close();
    }
    const logged = await eventually(() => logsOfSession("realtime.response", `&virtual_key_ids=${key.id}`), (logs) => logs.length === 2);
    expect(logged.map((log) => log.status)).toEqual(["success", "error"]);
  });

  test("on Azure, the session opens on the v1 surface with the key as `api-key`, the deployment named as the model", async () => {
    const onAzure = await startGateway({
      providers: { azure: { keys: [{ id: "az", value: UPSTREAM_KEY, azure_key_config: { endpoint: upstream.url, api_version: "2025-04-01-preview", deployments: { "gpt-realtime": "voice-prod" } } }] } },
    });
    try {
      const session = await openSession("unused", "azure/gpt-realtime", onAzure);
      session.ask("hello azure");
      expect((await session.next("response.done")).response.status).toBe("completed");
      const connection = upstream.connections.at(-1)!;
      expect(connection).toMatchObject({ path: "/openai/v1/realtime", model: "voice-prod" });
      expect(connection.headers.get("api-key")).toBe(UPSTREAM_KEY);
      session.socket.close();
    } finally {
      await onAzure.close();
    }
  });

  test("Azure's client (endpoint `/openai`) opens it at its /openai/realtime, the deployment and its key in the query", async () => {
    const key = await createVirtualKey(gw, { name: "realtime-azure-client" });
    // What OpenAIRealtimeWebSocket.azure() opens, browsers included: no header to carry the key.
    const socket = new WebSocket(`${gw.url.replace(/^http/, "ws")}/openai/openai/realtime?api-version=2025-04-01-preview&deployment=gpt-realtime&api-key=${key.value}`);
    const first = await new Promise<{ type: string }>((resolve) => socket.addEventListener("message", (event) => resolve(JSON.parse(String(event.data))), { once: true }));
    expect(first.type).toBe("session.created");
    expect(upstream.connections.at(-1)!.model).toBe("gpt-realtime");
    socket.close();
    const logged = await eventually(() => logsOfSession("realtime.session", `&virtual_key_ids=${key.id}`), (logs) => logs.length > 0);
    expect(logged[0]).toMatchObject({ provider: "openai", model: "gpt-realtime" });
  });

  test("an event that does not parse is passed on as it came, and the session goes on", async () => {
    const session = await openSession();
    upstream.sendRaw('{"type":"response.done","response":');
    await eventually(async () => session.errors, (errors) => errors.length > 0);
    expect(session.errors[0]).toContain("could not parse");
    session.ask("still there?");
    expect((await session.next("response.done")).response.status).toBe("completed");
    session.socket.close();
  });

  test("the provider closing the session closes the client's socket", async () => {
    const session = await openSession();
    const closed = new Promise<number>((resolve) => session.socket.socket.addEventListener("close", (event) => resolve(event.code)));
    upstream.closeAll(4000, "the provider ended it");
    expect(await closed).toBe(4000);
  });
});

describe("what is refused before the socket opens", () => {
  const upgrade = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": btoa("0123456789abcdef"), "sec-websocket-version": "13" };

  test("a plain GET is a 426; no model is a 400 naming it (Azure's: the deployment); an unknown provider or key is a 400", async () => {
    await expectGatewayError(await fetch(`${gw.url}/v1/realtime?model=openai/gpt-realtime`), 426);
    await expectGatewayError(await fetch(`${gw.url}/v1/realtime`, { headers: upgrade }), 400, { param: "model" });
    await expectGatewayError(await fetch(`${gw.url}/openai/openai/realtime?api-version=2025-04-01-preview`, { headers: upgrade }), 400, { param: "deployment" });
    // An upgrade the server cannot complete (no Sec-WebSocket-Key) closes the provider's socket it opened, and is logged once.
    const opened = upstream.connections.length;
    const incomplete = await fetch(`${gw.url}/v1/realtime?model=openai/gpt-realtime-incomplete`, { headers: { upgrade: "websocket", connection: "Upgrade" } });
    await expectGatewayError(incomplete, 426);
    await eventually(async () => upstream.connections[opened]?.closed, (closed) => closed !== undefined);
    const logged = await eventually(() => logsOfSession("realtime.session", "&models=gpt-realtime-incomplete"), (logs) => logs.length > 0);
    expect(logged.map((log) => log.status)).toEqual(["error"]);
    await expectGatewayError(await fetch(`${gw.url}/v1/realtime?model=nowhere/gpt-realtime`, { headers: upgrade }), 400, { param: "model" });
    await expectGatewayError(await fetch(`${gw.url}/v1/realtime?model=openai/gpt-realtime`, { headers: { ...upgrade, "x-gw-api-key-id": "no-such-key" } }), 400, { param: "x-gw-api-key-id" });
  });

  test("where inference needs a virtual key, a session without one is a 401", async () => {
    const guarded = await startGateway({ enforce_auth_on_inference: true, providers: { openai: { keys: [{ id: "rt", value: UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl } } } });
    try {
      const opened = upstream.connections.length;
      await expectGatewayError(await fetch(`${guarded.url}/v1/realtime?model=openai/gpt-realtime`, { headers: upgrade }), 401, { errorType: "caller_virtual_key_required" });
      expect(upstream.connections.length).toBe(opened);
    } finally {
      await guarded.close();
    }
  });

  test("a provider that refuses the handshake is passed over for the fallbacks in x-gw-fallbacks, each try logged", async () => {
    const withBackup = await startGateway({
      providers: {
        openai: { keys: [{ id: "revoked", value: "sk-revoked" }], network_config: { base_url: upstream.baseUrl } },
        backup: { keys: [{ id: "good", value: UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl }, custom_provider_config: { base_provider_type: "openai" } },
      },
    });
    try {
      const headers = { "x-gw-fallbacks": "backup/gpt-realtime-backup" };
      const socket = new WebSocket(`${withBackup.url.replace(/^http/, "ws")}/v1/realtime?model=openai/gpt-realtime`, { headers } as unknown as string[]);
      const first = await new Promise<{ type: string }>((resolve) => socket.addEventListener("message", (event) => resolve(JSON.parse(String(event.data))), { once: true }));
      expect(first.type).toBe("session.created");
      expect(upstream.connections.at(-1)!.model).toBe("gpt-realtime-backup");
      socket.close();
      const logged = await eventually(
        async () => ((await (await withBackup.admin("/api/logs?objects=realtime.session")).json()) as { logs: Array<{ id: string }> }).logs,
        (logs) => logs.length > 0,
      );
      const detail = (await (await withBackup.admin(`/api/logs/${logged[0]!.id}`)).json()) as Record<string, unknown>;
      expect(detail).toMatchObject({ provider: "backup", model: "gpt-realtime-backup", selected_key_id: "good", status: "success" });
      expect(detail.attempts).toEqual([
        { provider: "openai", model: "gpt-realtime", key: "revoked", is_fallback: false, status: 502, error_type: "provider_unreachable" },
        { provider: "backup", model: "gpt-realtime-backup", key: "good", is_fallback: true },
      ]);
    } finally {
      await withBackup.close();
    }
  });

  test("a provider that refuses the handshake is a 502, and the session is logged as failed", async () => {
    const refusing = await startGateway({ providers: { openai: { keys: [{ id: "bad", value: "sk-wrong-key" }], network_config: { base_url: upstream.baseUrl } } } });
    try {
      const response = await fetch(`${refusing.url}/v1/realtime?model=openai/gpt-realtime`, { headers: { ...upgrade, "x-gw-metadata-case": "refused-realtime" } });
      await expectGatewayError(response, 502, { errorType: "provider_unreachable" });
      const logged = await eventually(
        async () => ((await (await refusing.admin("/api/logs?metadata_case=refused-realtime")).json()) as { logs: Array<Record<string, unknown>> }).logs,
        (logs) => logs.length > 0,
      );
      expect(logged[0]).toMatchObject({ object: "realtime.session", status: "error", selected_key_id: "bad" });
    } finally {
      await refusing.close();
    }
  });
});

describe("ephemeral keys for a browser's own Realtime session", () => {
  test("client_secrets.create reaches the provider with the gateway's key and is logged", async () => {
    const platform = startMockOpenAI();
    const minting = await startGateway({ providers: { openai: { keys: [{ id: "mint", value: "sk-mint-upstream" }], network_config: { base_url: platform.baseUrl } } } });
    try {
      const sdk = new OpenAI({ baseURL: `${minting.url}/v1`, apiKey: "unused", defaultHeaders: { "x-gw-metadata-case": "client-secret" } });
      const secret = await sdk.realtime.clientSecrets.create({ session: { type: "realtime", model: "gpt-realtime", instructions: "speak softly" } });
      expect(secret.value).toStartWith("ek_");
      expect(secret.session).toMatchObject({ type: "realtime", instructions: "speak softly" });
      expect(platform.requests.at(-1)!.headers.get("authorization")).toBe("Bearer sk-mint-upstream");
      expect(await loggedRequest(minting, "client-secret")).toMatchObject({ object: "realtime.client_secret.create", provider: "openai", selected_key_id: "mint", status: "success" });
    } finally {
      await minting.close();
      platform.stop();
    }
  });
});

describe("a Realtime call (WebRTC, SIP) and its sideband", () => {
  test("the call is accepted and hung up with the gateway's key; its sideband socket is relayed, and logged with the call's model", async () => {
    const sdk = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused" });
    const accept = { type: "realtime", model: "gpt-realtime-phone", instructions: "answer the phone" } as const;
    await sdk.realtime.calls.accept("rtc_incoming_1", accept);
    expect(upstream.calls.get("rtc_incoming_1")!.actions).toEqual([{ action: "accept", body: accept }]);

    const sideband = new OpenAIRealtimeWebSocket({ callID: "rtc_incoming_1", onURL: (url) => (url.protocol = "ws:") }, sdk);
    const done = new Promise<RealtimeServerEvent>((resolve) => sideband.on("response.done", resolve));
    await new Promise((resolve) => sideband.on("session.created", resolve));
    const connection = upstream.connections.at(-1)!;
    expect(connection).toMatchObject({ callId: "rtc_incoming_1", model: "gpt-realtime-phone" });
    expect(connection.headers.get("authorization")).toBe(`Bearer ${UPSTREAM_KEY}`);
    sideband.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "caller says hi" }] } });
    sideband.send({ type: "response.create" });
    await done;
    sideband.close();
    await sdk.realtime.calls.hangup("rtc_incoming_1");
    expect(upstream.calls.get("rtc_incoming_1")!.actions.map((entry) => entry.action)).toEqual(["accept", "hangup"]);

    // The session.created of the call names its model: the rows carry it, though the client named none.
    const logged = await eventually(() => logsOfSession("realtime", "&models=gpt-realtime-phone"), (logs) => logs.length === 2);
    const byObject = Object.fromEntries(logged.map((log) => [log.object, log]));
    expect(byObject["realtime.session"]).toMatchObject({ provider: "openai", status: "success" });
    expect(byObject["realtime.response"]).toMatchObject({ provider: "openai", status: "success" });
    expect(byObject["realtime.response"]!.total_tokens as number).toBeGreaterThan(0);
  });
});

describe("a browser's WebRTC call, started through the gateway", () => {
  const offer = "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";

  test("the SDP offer, alone or in a form with the session, reaches the provider as it came; the answer and the call's URL come back", async () => {
    const raw = await fetch(`${gw.url}/v1/realtime/calls`, { method: "POST", headers: { "content-type": "application/sdp" }, body: offer });
    expect(raw.status).toBe(201);
    expect(raw.headers.get("content-type")).toStartWith("application/sdp");
    const callId = raw.headers.get("location")!.split("/").at(-1)!;
    expect(await raw.text()).toContain(callId);
    expect(upstream.calls.get(callId)!.offer).toEqual({ contentType: "application/sdp", sdp: offer });

    const form = new FormData();
    form.set("sdp", offer);
    form.set("session", JSON.stringify({ type: "realtime", model: "gpt-realtime" }));
    const withSession = await fetch(`${gw.url}/v1/realtime/calls`, { method: "POST", body: form });
    expect(withSession.status).toBe(201);
    const formCall = upstream.calls.get(withSession.headers.get("location")!.split("/").at(-1)!)!;
    expect(formCall.actions[0]!.body).toEqual({ type: "realtime", model: "gpt-realtime" });
    expect(formCall.offer!.sdp).toBe(offer);
  });

  test("each call's sideband opens with the key that created it, when the keys are projects of their own", async () => {
    const keys = [
      { id: "project-a", value: "sk-realtime-project-a" },
      { id: "project-b", value: "sk-realtime-project-b" },
    ];
    const projects = startMockOpenAIRealtime(...keys.map((key) => key.value));
    projects.keysAreProjects = true;
    const onProjects = await startGateway({ providers: { openai: { keys, network_config: { base_url: projects.baseUrl } } } });
    try {
      const calls = [];
      for (const key of [...keys, ...keys]) {
        const created = await fetch(`${onProjects.url}/v1/realtime/calls`, { method: "POST", headers: { "content-type": "application/sdp", "x-gw-api-key-id": key.id }, body: offer });
        calls.push(created.headers.get("location")!.split("/").at(-1)!);
      }
      for (const callId of calls) {
        const sideband = new OpenAIRealtimeWebSocket({ callID: callId, onURL: (url) => (url.protocol = "ws:") }, new OpenAI({ baseURL: `${onProjects.url}/v1`, apiKey: "unused" }));
        const created = await new Promise<unknown>((resolve) => {
          sideband.on("session.created", resolve);
          sideband.on("error", resolve);
        });
        expect(created).toMatchObject({ type: "session.created" });
        sideband.close();
      }
    } finally {
      await onProjects.close();
      projects.stop();
    }
  });
});
