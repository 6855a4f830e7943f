import { afterAll, beforeAll, expect, test } from "bun:test";
import { CHANGE_CHECK_MS } from "../../src/db/table-changes";
import { startGateway, type TestGateway } from "../support/gateway";
import { LIBSQL_SERVER_BINARY, startLibsqlServer } from "../support/libsql-server";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";
import { chat, created, createVirtualKey, openAIProvider } from "./support";

let upstream: MockOpenAI;
let gw: TestGateway;

beforeAll(async () => {
  upstream = startMockOpenAI();
  // On a libSQL server a reload's read takes a round trip: long enough for a write of this
  // node to land in memory while it is under way, and be undone by the older rows it returns.
  const config = { enforce_auth_on_inference: true, providers: { openai: openAIProvider(upstream) } };
  gw = await startGateway(config, LIBSQL_SERVER_BINARY ? { databaseServer: await startLibsqlServer() } : undefined);
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});

/**
 * Runs `step` back to back until the node has checked for changes (and, after each write, reloaded) several times.
 * The three tests below write to tables of their own and wait out the same checks: they run at once.
 */
async function throughSeveralReloads(step: (index: number) => Promise<void>): Promise<number> {
  const until = Date.now() + 3 * CHANGE_CHECK_MS + 200;
  let index = 0;
  while (Date.now() < until) await step(index++);
  return index;
}

test.concurrent("a virtual key created on this node serves at once, whatever reload is under way", async () => {
  const statuses: number[] = [];
  const steps = await throughSeveralReloads(async (index) => {
    const key = await createVirtualKey(gw, { name: `fresh-${index}` });
    const response = await chat(gw, key.value);
    await response.arrayBuffer();
    statuses.push(response.status);
  });
  expect(steps).toBeGreaterThan(10);
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
});

test.concurrent("a provider added on this node serves at once, whatever reload is under way", async () => {
  const key = await createVirtualKey(gw, { name: "provider-user" });
  const statuses: number[] = [];
  await throughSeveralReloads(async (index) => {
    await created(gw, "/api/providers", { provider: `fresh-${index}`, ...openAIProvider(upstream, [{ id: `key-${index}` }]), custom_provider_config: { base_provider_type: "openai" } });
    const response = await chat(gw, key.value, { model: `fresh-${index}/gpt-4o-mini` });
    await response.arrayBuffer();
    statuses.push(response.status);
  });
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
});

test.concurrent("a routing rule created on this node routes at once, whatever reload is under way", async () => {
  const key = await createVirtualKey(gw, { name: "rule-user" });
  const models: string[] = [];
  await throughSeveralReloads(async (index) => {
    await created(gw, "/api/governance/routing-rules", {
      name: `fresh-${index}`,
      cel_expression: `headers["x-step"] == "${index}"`,
      targets: [{ provider: "openai", model: `routed-${index}` }],
    });
    const response = await chat(gw, key.value, {}, { "x-step": String(index) });
    await response.arrayBuffer();
    models.push(response.headers.get("x-gw-model") === `routed-${index}` ? "routed" : `not routed (${response.status})`);
  });
  expect(models.filter((model) => model !== "routed")).toEqual([]);
});
