import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { generateFacts, type LogFact, recordFacts } from "../logs/seed-logs";
import { expectGatewayError } from "../support/gateway-error";
import { cosine, topicEmbedding } from "../support/warp-model";
import { chat, type ChatEvent, eventually, putConfig, startWarpTestbed, usableConfig, VOCABULARY, type WarpTestbed, writeConfig } from "./support";

/** Traffic through the gateway; each prompt's words decide its vector (the reply, "done", has no topic). */
const LIVE_PROMPTS = ["refund for order 7", "refund the invoice", "refund refund refund invoice", "weather in Paris tomorrow", "invoice copy please", "hello there"];

let bed: WarpTestbed;
let client: OpenAI;

interface BackfillStatus {
  state: string;
  total_logs: number;
  processed_logs: number;
  indexed_logs: number;
  vectors_in_space: number;
  live_index: { indexed: number; queued: number };
}

const status = async (): Promise<BackfillStatus> => (await (await bed.gw.admin("/api/warp/log-index/backfill/status")).json()) as BackfillStatus;
const startBackfill = () => bed.gw.admin("/api/warp/log-index/backfill", { method: "POST" });
const vectorsAtLeast = (count: number) => eventually(status, (seen) => seen.vectors_in_space >= count);

beforeAll(async () => {
  bed = await startWarpTestbed();
  client = new OpenAI({ baseURL: `${bed.gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
  await writeConfig(bed.gw, usableConfig());
  for (const prompt of LIVE_PROMPTS) await client.chat.completions.create({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: prompt }] });
  await vectorsAtLeast(LIVE_PROMPTS.length);
});
afterAll(() => bed.close());
beforeEach(() => {
  bed.model.script = [];
  bed.model.afterScript = { text: "done" };
});

interface Found {
  id: string;
  similarity: number;
  excerpt: string;
}

/** Asks the agent a question its model answers by calling semantic_search_logs with `args`. */
async function search(args: Record<string, unknown>): Promise<Found[]> {
  bed.model.script = [{ tools: [{ name: "semantic_search_logs", arguments: args }] }, { text: "found them" }];
  const { events } = await chat(bed.gw, { message: `find logs about ${args.query}` });
  const end = events.find((event: ChatEvent) => event.event === "tool_call_end")!;
  expect(end.data).toMatchObject({ name: "semantic_search_logs", ok: true });
  return (end.data.result as { logs: Found[] }).logs;
}

const promptOf = (found: Found) => found.excerpt.split("\n")[0]!;

/** The oracle: the texts at least `threshold` similar to the query, closest first, at most `limit`. */
function nearest(query: string, texts: readonly string[], threshold: number, limit: number) {
  const wanted = topicEmbedding(query, VOCABULARY);
  return texts
    .map((text) => ({ text, similarity: cosine(wanted, topicEmbedding(`${text}\ndone`, VOCABULARY)) }))
    .filter((entry) => entry.similarity >= threshold - 1e-6)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, limit);
}

describe("new logs are indexed as they arrive", () => {
  test("every chat through the gateway is embedded once; the agent's own chats and the embedding calls are not", async () => {
    expect((await status()).vectors_in_space).toBe(LIVE_PROMPTS.length);
    await chat(bed.gw, { message: "what happened today?" });
    // Wait until the agent's own chat is in the logs, then check it stayed out of the index.
    await eventually(
      async () => (await (await bed.gw.admin("/api/logs?metadata_warp_agent=chat&origin=gateway")).json()) as { total: number },
      (logs) => logs.total >= 1,
    );
    const embeddingLogs = (await (await bed.gw.admin("/api/logs?objects=embedding&origin=gateway")).json()) as { total: number };
    expect(embeddingLogs.total).toBeGreaterThan(0);
    expect((await status()).vectors_in_space).toBe(LIVE_PROMPTS.length);
  });
});

describe("semantic_search_logs", () => {
  test("returns the logs nearest the question that are at least semantic_search_threshold similar, closest first", async () => {
    const found = await search({ query: "refund" });
    const expected = nearest("refund", LIVE_PROMPTS, 0.8, 10);
    expect(expected.map((entry) => entry.text)).toEqual(["refund for order 7", "refund refund refund invoice"]);
    expect(found.map(promptOf)).toEqual(expected.map((entry) => entry.text));
    found.forEach((log, index) => expect(log.similarity).toBeCloseTo(expected[index]!.similarity, 3));
  });

  test("a lower threshold lets less similar logs in; semantic_search_limit caps how many come back", async () => {
    await writeConfig(bed.gw, usableConfig({ semantic_search_threshold: 0.5 }));
    const lower = nearest("refund", LIVE_PROMPTS, 0.5, 10).map((entry) => entry.text);
    expect(lower).toEqual(["refund for order 7", "refund refund refund invoice", "refund the invoice"]);
    expect((await search({ query: "refund" })).map(promptOf)).toEqual(lower);
    await writeConfig(bed.gw, usableConfig({ semantic_search_threshold: 0.5, semantic_search_limit: 2 }));
    expect((await search({ query: "refund" })).map(promptOf)).toEqual(lower.slice(0, 2));
    // The model may ask for fewer, never for more than the configured limit.
    expect(await search({ query: "refund", limit: 1 })).toHaveLength(1);
    expect(await search({ query: "refund", limit: 20 })).toHaveLength(2);
    await writeConfig(bed.gw, usableConfig());
  });

  test("nothing above the threshold is an empty answer, not a guess", async () => {
    expect(await search({ query: "latency" })).toEqual([]);
  });

  test("a deleted log is no longer found", async () => {
    const [closest] = await search({ query: "refund" });
    expect(promptOf(closest!)).toBe("refund for order 7");
    const deleted = await bed.gw.admin("/api/logs", { method: "DELETE", json: { ids: [closest!.id] } });
    expect(deleted.status).toBe(200);
    expect((await search({ query: "refund" })).map(promptOf)).toEqual(["refund refund refund invoice"]);
  });
});

/** Requests stored before the index knew them, as history is: straight into the log table. */
function historyFacts(prefix: string, prompts: string[]): LogFact[] {
  const template = generateFacts(1, new Date())[0]!;
  return prompts.map((prompt, index) => ({ ...template, id: `${prefix}-${index}`, operation: "chat", status: "success", errorType: undefined, prompt, reply: "noted", timestamp: new Date(Date.now() - (index + 1) * 60_000), metadata: {} }));
}

describe("POST /api/warp/log-index/backfill", () => {
  test("indexes the logs stored before, with status to follow it; a second run finds nothing left", async () => {
    const before = (await status()).vectors_in_space;
    const history = historyFacts("outage", ["outage in the eu region", "outage outage latency", "outage latency"]);
    await recordFacts(bed.gw.databaseUrl, history);
    expect((await status()).vectors_in_space).toBe(before);
    const started = await startBackfill();
    expect(started.status).toBe(202);
    expect(await started.json()).toMatchObject({ state: "running", total_logs: history.length, namespace: "GatewayWarpLogs", embedding_model: "text-embedding-3-small" });
    const done = await eventually(status, (seen) => seen.state !== "running");
    expect(done).toMatchObject({ state: "completed", total_logs: history.length, processed_logs: history.length, indexed_logs: history.length, vectors_in_space: before + history.length });
    const expected = nearest("outage", history.map((fact) => fact.prompt), 0.8, 10).map((entry) => entry.text);
    expect(expected).toEqual(["outage in the eu region", "outage outage latency"]);
    expect((await search({ query: "outage" })).map(promptOf)).toEqual(expected);

    await startBackfill();
    expect(await eventually(status, (seen) => seen.state !== "running")).toMatchObject({ state: "completed", total_logs: 0 });
  });

  test("cancel stops the run in flight; while it runs, the embedding configuration cannot change (409)", async () => {
    await recordFacts(bed.gw.databaseUrl, historyFacts("held", ["weather report", "weather again"]));
    const vectors = (await status()).vectors_in_space;
    const held = bed.model.holdEmbeddings();
    expect((await startBackfill()).status).toBe(202);
    await held.arrived;
    expect((await startBackfill()).status).toBe(409);

    for (const [field, value] of [
      ["embedding_model", "text-embedding-3-large"],
      ["embedding_dimension", 3],
      ["embedding_provider", "house-llm"],
      ["embedding_api_key_id", "openai-backup"],
      ["log_vector_store_namespace", "Elsewhere"],
    ] as const) {
      await expectGatewayError(await putConfig(bed.gw, usableConfig({ [field]: value })), 409, { param: field });
    }
    // Everything else may change during a backfill.
    expect((await putConfig(bed.gw, usableConfig({ model: "gpt-4o", max_iterations: 4 }))).status).toBe(200);

    const cancelled = await bed.gw.admin("/api/warp/log-index/backfill/cancel", { method: "POST" });
    expect(await cancelled.json()).toMatchObject({ state: "cancelled", processed_logs: 0 });
    held.release();
    expect((await status()).vectors_in_space).toBe(vectors);
    expect((await putConfig(bed.gw, usableConfig({ embedding_model: "text-embedding-3-large" }))).status).toBe(200);
    await writeConfig(bed.gw, usableConfig());
  });

  test("a new embedding space starts empty and the backfill fills it from every indexable log", async () => {
    await writeConfig(bed.gw, usableConfig({ embedding_model: "text-embedding-3-large" }));
    expect((await status()).vectors_in_space).toBe(0);
    expect(await search({ query: "weather" })).toEqual([]);
    expect((await startBackfill()).status).toBe(202);
    const done = await eventually(status, (seen) => seen.state !== "running");
    expect(done.state).toBe("completed");
    expect(done.vectors_in_space).toBe(done.total_logs);
    // Equally similar: compared as a set.
    expect((await search({ query: "weather" })).map(promptOf).sort()).toEqual(["weather again", "weather in Paris tomorrow", "weather report"]);
    await writeConfig(bed.gw, usableConfig());
  });

  test("503 with reason not_configured while the agent is not configured", async () => {
    await writeConfig(bed.gw, usableConfig({ enabled: false }));
    const error = await expectGatewayError(await startBackfill(), 503);
    expect(error.extra_fields).toMatchObject({ reason: "not_configured" });
    await writeConfig(bed.gw, usableConfig());
  });
});
