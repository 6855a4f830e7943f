import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "../support/eventually";
import { type GatewayProcess, startGatewayProcess } from "../support/main-process";
import { type MockOpenAI, startMockOpenAI } from "../support/mock-openai";

const JOBS = 8;

let upstream: MockOpenAI;
let workDir: string;
beforeAll(() => {
  upstream = startMockOpenAI();
  workDir = mkdtempSync(join(tmpdir(), "gateway-node-ids-"));
});
afterAll(() => {
  upstream.stop();
  rmSync(workDir, { recursive: true, force: true });
});

async function submit(node: GatewayProcess, text: string): Promise<string> {
  const response = await fetch(`${node.url}/v1/async/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: text }] }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { id: string }).id;
}

const status = async (node: GatewayProcess, id: string) => ((await (await fetch(`${node.url}/v1/async/chat/completions/${id}`)).json()) as { status: string }).status;

const upstreamCallsFor = (text: string) => upstream.requests.filter((request) => JSON.stringify(request.body).includes(text)).length;

describe("two gateway processes on one database run each async job once", () => {
  const CASES: Array<[string, Record<string, string>]> = [
    ["neither sets GATEWAY_NODE_ID: each process has a node id of its own", {}],
    ["both set the same GATEWAY_NODE_ID: the second refuses the leases the live first holds", { GATEWAY_NODE_ID: "shared-node" }],
  ];
  for (const [index, [what, env]] of CASES.entries()) {
    test(what, async () => {
      const config = join(workDir, `config-${index}.json`);
      writeFileSync(config, JSON.stringify({ providers: { openai: { keys: [{ id: "k", value: "sk-nodes", models: ["*"] }], network_config: { base_url: upstream.baseUrl } } } }));
      const nodeEnv = { ...env, GATEWAY_DB_URL: `file:${join(workDir, `shared-${index}.db`)}`, GATEWAY_ENCRYPTION_KEY: "node-ids-test-key" };
      const gate = Promise.withResolvers<void>();
      upstream.onRequest = () => gate.promise;
      const first = await startGatewayProcess(config, nodeEnv);
      let second: GatewayProcess | undefined;
      try {
        const texts = Array.from({ length: JOBS }, (_, job) => `case ${index} job ${job}`);
        const ids = await Promise.all(texts.map((text) => submit(first, text)));
        // Every job is under way on the first node, held upstream, when the second one starts.
        await eventually(async () => texts.every((text) => upstreamCallsFor(text) === 1), Boolean, 10_000);
        second = await startGatewayProcess(config, nodeEnv);
        gate.resolve();
        await eventually(async () => Promise.all(ids.map((id) => status(first, id))), (states) => states.every((state) => state === "completed"), 15_000);
        expect(await second.stop()).toBe(0);
        second = undefined;
        expect(texts.map(upstreamCallsFor)).toEqual(texts.map(() => 1));
      } finally {
        gate.resolve();
        upstream.onRequest = undefined;
        await second?.stop();
        await first.stop();
      }
    }, 60_000);
  }
});
