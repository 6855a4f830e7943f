import { afterAll, beforeAll, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { eventually } from "../support/eventually";
import { type GatewayProcess, mainProcessWorkspace, startGatewayProcess } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { expectIdsFrom, SseReader, TWENTY_CHUNKS } from "./support";

/**
 * The gateway holding a resumable stream's upstream call is killed (SIGKILL) midway and started
 * again on the same database: the call cannot move to the new process, so the stream is failed,
 * and what was stored before the kill stays readable.
 */

let upstream: MockOpenAI;
const workspace = mainProcessWorkspace("gateway-streams-killed-");
const started: GatewayProcess[] = [];

beforeAll(() => {
  upstream = startMockOpenAI();
});
afterAll(async () => {
  for (const node of started) await node.stop().catch(() => undefined);
  upstream.stop();
  workspace.remove();
});

test("kill -9 of the node holding a stream: the stream is failed, its stored events readable after the restart, the upstream called once", async () => {
  const config = workspace.writeConfig({
    providers: { openai: { keys: [{ id: "k", value: "sk-killed" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
    resumable_streams: { flush_interval_ms: 20, follow_interval_ms: 50 },
  });
  const env = { GATEWAY_DB_URL: `file:${workspace.path("gateway.db")}`, GATEWAY_ENCRYPTION_KEY: "streams-killed-key" };
  const holder = await startGatewayProcess(config, env);
  started.push(holder);

  const held = upstream.holdNextStream();
  const opened = fetch(`${holder.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gw-resumable": "true" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: TWENTY_CHUNKS }], stream: true }),
  });
  await held.arrived;
  held.release(3);
  const response = await opened;
  const id = response.headers.get("x-gw-stream-id")!;
  const before = await new SseReader(response.body!).take(3);
  expectIdsFrom(before, 1, 3);
  const database = createClient({ url: env.GATEWAY_DB_URL });
  const stored = async () => Number((await database.execute({ sql: "SELECT count(*) AS n FROM resumable_stream_events WHERE stream_id = ?", args: [id] })).rows[0]!.n);
  expect(await eventually(stored, (count) => count === 3)).toBe(3);

  holder.child.kill("SIGKILL");
  await holder.child.exited;
  const restarted = await startGatewayProcess(config, env);
  started.push(restarted);

  const replayed = await new SseReader((await fetch(`${restarted.url}/v1/streams/${id}?after=0`)).body!).rest();
  expectIdsFrom(replayed.slice(0, 3), 1, 3);
  expect(replayed.slice(0, 3).map((event) => event.data)).toEqual(before.map((event) => event.data));
  expect(replayed).toHaveLength(4);
  expect(JSON.parse(replayed[3]!.data).error.message).toContain("node holding the upstream call stopped");
  const state = (await database.execute({ sql: "SELECT state FROM resumable_streams WHERE id = ?", args: [id] })).rows[0]!.state;
  expect(state).toBe("failed");
  database.close();
  expect(upstream.requests).toHaveLength(1);
}, 60_000);
