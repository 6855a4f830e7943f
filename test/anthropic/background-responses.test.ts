import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectGatewayError, postJson } from "../support/gateway-error";
import { closeNodes, startGateway, startNodes, type TestGateway } from "../support/gateway";
import { type MockAnthropic, startMockAnthropic } from "../support/mock-anthropic";
import { eventually } from "../support/eventually";
import { ANTHROPIC_UPSTREAM_KEY, openAIClientOf } from "./fixture";
import { createVirtualKey } from "../governance/support";

/**
 * `background: true` asks for a response to be written while the client goes away and polls.
 * OpenAI does that itself; for a provider without a Responses API the gateway does, as a durable
 * async job, and the response is read, continued and cancelled as on OpenAI.
 */

const MODEL = "anthropic/claude-sonnet-4-5";

let upstream: MockAnthropic;
let gw: TestGateway;
let client: OpenAI;

const anthropicProvider = () => ({ keys: [{ id: "ant-1", value: ANTHROPIC_UPSTREAM_KEY }], network_config: { base_url: upstream.baseUrl } });

beforeAll(async () => {
  upstream = startMockAnthropic(ANTHROPIC_UPSTREAM_KEY);
  gw = await startGateway({ providers: { anthropic: anthropicProvider() } });
  client = openAIClientOf(gw.url);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/** Holds the next upstream call until `release`; `arrived` resolves once it has reached the provider. */
function holdUpstream() {
  const arrived = Promise.withResolvers<AbortSignal>();
  const released = Promise.withResolvers<void>();
  upstream.onRequest = (request) => {
    upstream.onRequest = undefined;
    arrived.resolve(request.signal);
    return released.promise;
  };
  return { arrived: arrived.promise, release: () => released.resolve() };
}

/** Polls as the SDK's users do until the response leaves queued and in_progress. */
async function finished(id: string, reader: OpenAI = client): Promise<OpenAI.Responses.Response> {
  for (;;) {
    const response = await reader.responses.retrieve(id);
    if (response.status !== "queued" && response.status !== "in_progress") return response;
    await Bun.sleep(5);
  }
}

const turnsSent = () => (upstream.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }).messages.map((message) => message.role);

describe("background: true on a provider without a Responses API", () => {
  test("answers at once, queued; the response is in progress while the provider works, then written, and continues like any other", async () => {
    const held = holdUpstream();
    const created = await client.responses.create({ model: MODEL, input: "think slowly", background: true, metadata: { case: "slow" } });
    expect(created).toMatchObject({ status: "queued", background: true, model: MODEL, metadata: { case: "slow" } });
    await held.arrived;
    expect((await client.responses.retrieve(created.id)).status).toBe("in_progress");
    held.release();
    const done = await finished(created.id);
    expect(done).toMatchObject({ id: created.id, status: "completed", background: true });
    expect(done.output_text).toBe("echo: think slowly");

    const next = await client.responses.create({ model: MODEL, previous_response_id: created.id, input: "and now?" });
    expect(next.output_text).toBe("echo: and now?");
    expect(turnsSent()).toEqual(["user", "assistant", "user"]);
  });

  test("cancel stops the provider's work, and the response stays cancelled", async () => {
    const held = holdUpstream();
    const created = await client.responses.create({ model: MODEL, input: "never mind", background: true });
    const upstreamSignal = await held.arrived;
    const cancelled = await client.responses.cancel(created.id);
    expect(cancelled.status).toBe("cancelled");
    // The provider sees its connection close: the test ends by its timeout if it never does.
    await new Promise((resolve) => (upstreamSignal.aborted ? resolve(undefined) : upstreamSignal.addEventListener("abort", resolve, { once: true })));
    held.release();
    expect((await client.responses.retrieve(created.id)).status).toBe("cancelled");
  });

  test("a response still queued behind another is cancelled before it starts: the provider never sees it", async () => {
    const single = await startGateway({ providers: { anthropic: anthropicProvider() }, async_inference: { max_concurrent_jobs: 1 } });
    try {
      const singleClient = openAIClientOf(single.url);
      const held = holdUpstream();
      const running = await singleClient.responses.create({ model: MODEL, input: "first in line", background: true });
      await held.arrived;
      const queued = await singleClient.responses.create({ model: MODEL, input: "second in line", background: true });
      expect((await singleClient.responses.retrieve(queued.id)).status).toBe("queued");
      expect((await singleClient.responses.cancel(queued.id)).status).toBe("cancelled");
      held.release();
      expect((await finished(running.id, singleClient)).status).toBe("completed");
      expect((await singleClient.responses.retrieve(queued.id)).status).toBe("cancelled");
      expect(JSON.stringify(upstream.requests.map((request) => request.body))).not.toContain("second in line");
    } finally {
      await single.close();
    }
  });

  test("cancel and delete reach the run from any node of the deployment, not only the one writing it", async () => {
    const nodes = await startNodes({ providers: { anthropic: anthropicProvider() } });
    try {
      const [writer, other] = nodes.map((node) => openAIClientOf(node.url));
      const held = holdUpstream();
      const created = await writer!.responses.create({ model: MODEL, input: "where am I", background: true });
      const upstreamSignal = await held.arrived;
      expect((await other!.responses.retrieve(created.id)).status).toBe("in_progress");
      expect((await other!.responses.cancel(created.id)).status).toBe("cancelled");
      await new Promise((resolve) => (upstreamSignal.aborted ? resolve(undefined) : upstreamSignal.addEventListener("abort", resolve, { once: true })));
      held.release();
      expect((await writer!.responses.retrieve(created.id)).status).toBe("cancelled");

      const running = holdUpstream();
      const second = await writer!.responses.create({ model: MODEL, input: "and forget me", background: true });
      await running.arrived;
      await other!.responses.delete(second.id);
      running.release();
      for (const reader of [writer!, other!]) expect(await reader.responses.retrieve(second.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);

      // A finished response is kept live by the node that wrote it until it expires: a delete elsewhere reaches it there too.
      const third = await writer!.responses.create({ model: MODEL, input: "done here", background: true });
      await finished(third.id, writer);
      await other!.responses.delete(third.id);
      expect(await writer!.responses.retrieve(third.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    } finally {
      await closeNodes(nodes);
    }
  });

  test("a cancel left while no node runs the job is kept, and applied by the node that takes the job over", async () => {
    const [writer, other] = await startNodes({ providers: { anthropic: anthropicProvider() } });
    let restarted: TestGateway | undefined;
    try {
      const first = holdUpstream();
      const created = await openAIClientOf(writer.url).responses.create({ model: MODEL, input: "pick me up later", background: true });
      await first.arrived;
      await writer.stop();
      first.release();
      const resumed = holdUpstream();
      // 200 when the other node took the job over meanwhile, else 409 once it gave up waiting: either way the cancel stays.
      const cancel = await fetch(`${other.url}/v1/responses/${created.id}/cancel`, { method: "POST" });
      expect([200, 409]).toContain(cancel.status);
      restarted = await writer.restart();
      await resumed.arrived;
      expect((await finished(created.id, openAIClientOf(other.url))).status).toBe("cancelled");
      resumed.release();
    } finally {
      // The server closes with the last node: the other node first, then the writer, whichever process it is now.
      await other.close();
      await (restarted ?? writer).close();
    }
  }, 20_000);

  test("delete while it runs stops the provider's work, and the response is gone", async () => {
    const held = holdUpstream();
    const created = await client.responses.create({ model: MODEL, input: "forget it", background: true });
    const upstreamSignal = await held.arrived;
    await client.responses.delete(created.id);
    await new Promise((resolve) => (upstreamSignal.aborted ? resolve(undefined) : upstreamSignal.addEventListener("abort", resolve, { once: true })));
    held.release();
    expect(await client.responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const jobId = created.id.slice("resp_".length).replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
    expect((await fetch(`${gw.url}/v1/async/responses/${jobId}`)).status).toBe(404);
  });

  test("a finished one, once deleted, stays deleted and cannot be continued", async () => {
    const created = await client.responses.create({ model: MODEL, input: "done and gone", background: true });
    expect((await finished(created.id)).output_text).toBe("echo: done and gone");
    await client.responses.delete(created.id);
    expect(await client.responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await client.responses.delete(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await client.responses.create({ model: MODEL, previous_response_id: created.id, input: "more" }).catch((error: unknown) => error);
    expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("previous_response_id");
  });

  test("a provider failure leaves the response failed, with the provider's message", async () => {
    upstream.faults.push({ kind: "status", status: 400, message: "prompt is too long" });
    const created = await client.responses.create({ model: MODEL, input: "too much", background: true });
    const failed = await finished(created.id);
    expect(failed.status).toBe("failed");
    expect(failed.error?.message).toContain("prompt is too long");
  });

  test("only the virtual key that started it reads it", async () => {
    const keyNamed = async (name: string) => ((await (await gw.admin("/api/governance/virtual-keys", { method: "POST", json: { name } })).json()) as { virtual_key: { value: string } }).virtual_key.value;
    const [alice, bob] = [await keyNamed("background-alice"), await keyNamed("background-bob")];
    const created = await openAIClientOf(gw.url, alice).responses.create({ model: MODEL, input: "mine", background: true });
    expect((await finished(created.id, openAIClientOf(gw.url, alice))).output_text).toBe("echo: mine");
    expect(await openAIClientOf(gw.url, bob).responses.retrieve(created.id).catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("a restart of the gateway in the middle does not lose it: the run starts again and the response is written", async () => {
    const own = await startGateway({ providers: { anthropic: anthropicProvider() } });
    const held = holdUpstream();
    const created = await openAIClientOf(own.url).responses.create({ model: MODEL, input: "survive this", background: true });
    await held.arrived;
    await own.stop();
    held.release();
    const restarted = await own.restart();
    try {
      const done = await finished(created.id, openAIClientOf(restarted.url));
      expect(done.output_text).toBe("echo: survive this");
    } finally {
      await restarted.close();
    }
  });

  test("store: false is a 400, since a background response is kept to be polled", async () => {
    await expectGatewayError(await postJson(`${gw.url}/v1/responses`, { model: MODEL, input: "x", background: true, store: false }), 400, { param: "store" });
  });

  test("a streamed call is answered in the foreground, its stream being the answer", async () => {
    const streamed = await client.responses.stream({ model: MODEL, input: "stream it", background: true }).finalResponse();
    expect(streamed.output_text).toBe("echo: stream it");
  });

  test("a run of a stored prompt is logged under its name and version, and runs for a key limited to that prompt", async () => {
    const prompt = { name: "background-digest", messages: [{ role: "user", content: "Digest {{topic}}" }], model: MODEL, parameters: { max_tokens: 32 } };
    expect((await gw.admin("/api/prompts", { method: "POST", json: prompt })).status).toBe(201);
    const limited = await createVirtualKey(gw, { name: "digest widget", allowed_prompts: ["background-digest"] });
    const created = await openAIClientOf(gw.url, limited.value).responses.create({
      background: true,
      // The gateway's `prompt` (a stored prompt by name), not OpenAI's (by id).
      prompt: { name: "background-digest", variables: { topic: "the news" } },
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(created).toMatchObject({ status: "queued", model: MODEL });

    type Row = { status: string; metadata: Record<string, string> };
    const read = async () => ((await (await gw.admin("/api/logs?metadata_prompt=background-digest")).json()) as { logs: Row[] }).logs;
    const rows = await eventually(read, (logs) => logs.some((row) => row.status !== "processing"), 10_000);
    expect(rows.map(({ status, metadata }) => ({ status, metadata }))).toEqual([{ status: "success", metadata: { prompt: "background-digest", prompt_version: "1", prompt_label: "latest" } }]);
    expect(JSON.stringify(upstream.requests.at(-1)!.body)).toContain("Digest the news");
  });
});

describe("a response the gateway keeps, read as a stream (stream=true)", () => {
  /** Every event of `GET /v1/responses/{id}?stream=true`, through the SDK. */
  async function eventsOf(id: string, startingAfter?: number) {
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    const stream = await client.responses.retrieve(id, { stream: true, ...(startingAfter === undefined ? {} : { starting_after: startingAfter }) });
    for await (const event of stream) events.push(event);
    return events;
  }

  test("a background run is streamed from its start, waiting while the provider works, to its end", async () => {
    const held = holdUpstream();
    const created = await client.responses.create({ model: MODEL, input: "stream me later", background: true });
    await held.arrived;
    const reading = eventsOf(created.id);
    held.release();
    const events = await reading;
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.slice(0, 3).map((event) => event.type)).toEqual(["response.created", "response.queued", "response.in_progress"]);
    expect(events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("")).toBe("echo: stream me later");
    expect(events.at(-1)).toMatchObject({ type: "response.completed", response: { id: created.id, status: "completed" } });
  });

  test("the SDK's responses.stream({ response_id }) builds the final response from it, and starting_after resumes it", async () => {
    const created = await client.responses.create({ model: MODEL, input: "resume me", background: true });
    const final = await client.responses.stream({ response_id: created.id }).finalResponse();
    expect(final).toMatchObject({ id: created.id, status: "completed" });
    expect(final.output_text).toBe("echo: resume me");
    const whole = await eventsOf(created.id);
    const resumed = await eventsOf(created.id, 4);
    expect(resumed.map((event) => event.sequence_number)).toEqual(whole.slice(5).map((event) => event.sequence_number));
    expect(resumed.map((event) => event.type)).toEqual(whole.slice(5).map((event) => event.type));
  });

  test("a response answered in the foreground streams too, with its function calls", async () => {
    const weather = { type: "function" as const, name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false };
    const created = await client.responses.create({ model: MODEL, input: "what is the weather?", tools: [weather] });
    // Kept once the reply has left: wait until it is.
    while ((await client.responses.retrieve(created.id).catch((error: unknown) => (error instanceof OpenAI.NotFoundError ? undefined : Promise.reject(error)))) === undefined) await Bun.sleep(5);
    const final = await client.responses.stream({ response_id: created.id }).finalResponse();
    // The SDK adds `parsed_arguments` to each function call it rebuilds.
    const rebuilt = (final.output as unknown as Record<string, unknown>[]).map(({ parsed_arguments: _, ...item }) => item);
    expect(rebuilt).toEqual(created.output as unknown as Record<string, unknown>[]);
    expect(final.output.some((item) => item.type === "function_call")).toBe(true);
  });
});

describe("background: true with stream: true, kept as a resumable stream", () => {
  const LONG_INPUT = Array.from({ length: 12 }, (_, index) => `w${index + 1}`).join(" ");
  const messagesCalls = () => upstream.requests.filter((request) => request.path.endsWith("/v1/messages")).length;
  const textOf = (events: OpenAI.Responses.ResponseStreamEvent[]) => events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : [])).join("");

  /** Holds the provider's streamed replies after their first `frames` frames, until the release. */
  function holdStreamAfter(frames: number) {
    const released = Promise.withResolvers<void>();
    upstream.beforeFrame = (frame) => (frame >= frames ? released.promise : undefined);
    return () => {
      upstream.beforeFrame = undefined;
      released.resolve();
    };
  }

  test("a client that left after 3 events resumes with starting_after and gets every other event once, in order; the provider is called once", async () => {
    const callsBefore = messagesCalls();
    const release = holdStreamAfter(4);
    const first: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: MODEL, input: LONG_INPUT, background: true, stream: true })) {
      first.push(event);
      if (first.length === 3) break;
    }
    const id = (first[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    // The client is gone; the provider's stream is still open, and the gateway still reads it.
    expect((await client.responses.retrieve(id)).status).toBe("in_progress");
    release();

    const rest: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.retrieve(id, { stream: true, starting_after: first.at(-1)!.sequence_number })) rest.push(event);
    const all = [...first, ...rest];
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
    expect(textOf(all)).toBe(`echo: ${LONG_INPUT}`);
    expect(rest.at(-1)).toMatchObject({ type: "response.completed", response: { id, status: "completed" } });
    expect(messagesCalls()).toBe(callsBefore + 1);

    const done = await eventually(() => client.responses.retrieve(id), (response) => response.status === "completed");
    expect(done.output_text).toBe(`echo: ${LONG_INPUT}`);
  });

  test("cancel stops the provider's stream; the response and its readers see it cancelled", async () => {
    const release = holdStreamAfter(4);
    const arrived = Promise.withResolvers<AbortSignal>();
    upstream.onRequest = (request) => {
      upstream.onRequest = undefined;
      arrived.resolve(request.signal);
    };
    const events = (await client.responses.create({ model: MODEL, input: "stop me midway", background: true, stream: true }))[Symbol.asyncIterator]();
    const id = ((await events.next()).value as OpenAI.Responses.ResponseCreatedEvent).response.id;
    const upstreamSignal = await arrived.promise;

    expect((await client.responses.cancel(id)).status).toBe("cancelled");
    // The provider sees its connection close: the test ends by its timeout if it never does.
    await new Promise((resolve) => (upstreamSignal.aborted ? resolve(undefined) : upstreamSignal.addEventListener("abort", resolve, { once: true })));
    release();
    expect((await client.responses.retrieve(id)).status).toBe("cancelled");
    // The client still reading is told, as a reader resuming it is.
    const reading = async () => {
      for (let next = await events.next(); !next.done; next = await events.next());
    };
    expect(await reading().catch((error: unknown) => error)).toBeInstanceOf(Error);
    const resumed = client.responses.retrieve(id, { stream: true, starting_after: 0 }).then(async (stream) => {
      for await (const _ of stream);
    });
    expect(await resumed.catch((error: unknown) => error)).toBeInstanceOf(Error);
  });
});
