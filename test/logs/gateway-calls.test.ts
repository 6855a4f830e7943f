import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chat, eventually, startWarpTestbed, usableConfig, type WarpTestbed, writeConfig } from "../warp/support";

/**
 * The gateway's own calls (Warp's embeddings and chat) are logged, marked with who made them, and
 * kept out of the overview's counts and rankings unless asked for (`origin=gateway` or `all`).
 */
let bed: WarpTestbed;

type Json = Record<string, any>;

beforeAll(async () => {
  bed = await startWarpTestbed();
  await writeConfig(bed.gw, usableConfig());
  const client = await fetch(`${bed.gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "house-llm/house-model", messages: [{ role: "user", content: "a refund please" }] }),
  });
  expect(client.status).toBe(200);
  bed.model.script = [{ text: "One request asked for a refund." }];
  const asked = await chat(bed.gw, { message: "Which requests asked about a refund?" });
  expect(asked.response.status).toBe(200);
  await eventually(
    () => read("/api/logs?origin=all"),
    (page) => page.logs.some((log: Json) => log.internal_caller === "warp" && log.object === "embedding") && page.logs.some((log: Json) => log.internal_caller === null),
  );
});
afterAll(() => bed?.close());

async function read(path: string): Promise<Json> {
  const response = await bed.gw.admin(path);
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

describe("the gateway's own calls", () => {
  test("are marked with their caller and left out of the log list unless asked for", async () => {
    const clients = (await read("/api/logs")).logs as Json[];
    expect(clients.map((log) => [log.model, log.internal_caller])).toEqual([["house-model", null]]);
    const own = (await read("/api/logs?origin=gateway")).logs as Json[];
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((log) => log.internal_caller === "warp")).toBe(true);
    expect(own.map((log) => log.model)).toContain("text-embedding-3-small");
    expect((await read("/api/logs?origin=all")).logs).toHaveLength(clients.length + own.length);
  });

  test("are not counted in the overview's stats, histogram or rankings by default", async () => {
    const stats = await read("/api/logs/stats?period=1h");
    expect(stats.total_requests).toBe(1);
    // A long window reads whole hours from the hourly table, which holds client traffic only.
    expect((await read("/api/logs/stats?period=30d")).total_requests).toBe(1);
    const withOwn = await read("/api/logs/stats?period=1h&origin=all");
    expect(withOwn.total_requests).toBeGreaterThan(1);
    const histogram = await read("/api/logs/histogram?period=1h");
    expect(histogram.buckets.reduce((sum: number, bucket: Json) => sum + bucket.count, 0)).toBe(1);
    const rankings = await read("/api/logs/rankings?period=1h");
    expect(rankings.rankings.map((row: Json) => row.model)).toEqual(["house-model"]);
    const ownRankings = await read("/api/logs/rankings?period=1h&origin=gateway");
    expect(ownRankings.rankings.map((row: Json) => row.model)).toContain("text-embedding-3-small");
  });

  test("a request id finds one whatever its origin", async () => {
    const [own] = (await read("/api/logs?origin=gateway")).logs as Json[];
    const found = await read(`/api/logs?request_id=${own!.id}`);
    expect(found.logs.map((log: Json) => log.id)).toEqual([own!.id]);
  });

  test("an origin the API does not know is a 400 naming the field", async () => {
    const response = await bed.gw.admin("/api/logs?origin=everyone");
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("origin");
  });
});
