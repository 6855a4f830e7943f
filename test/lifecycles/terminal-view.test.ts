import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { SETUP_TOKEN, startGateway, type TestGateway } from "../support/gateway";
import { createEndpoint } from "../support/webhook-endpoints";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { actorUntil } from "./support";

const REPO_ROOT = resolve(import.meta.dir, "../..");
let gw: TestGateway;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = startWebhookReceiver();
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  receiver.stop();
});

/** `bun run actors [-- args]` against the test gateway. */
async function runActors(args: string[], env: Record<string, string> = { GATEWAY_SETUP_TOKEN: SETUP_TOKEN }) {
  const child = Bun.spawn([process.execPath, "run", "actors", ...args], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "", GATEWAY_URL: gw.url, ...env }, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

test("bun run actors prints the counts per kind and state; -- <id> prints one actor's timeline", async () => {
  const endpoint = await createEndpoint(gw, receiver, "/terminal");
  const ids: string[] = [];
  for (let sent = 0; sent < 2; sent++) ids.push(((await (await gw.admin(`/api/webhooks/${endpoint.id}/test`, { method: "POST" })).json()) as { id: string }).id);
  for (const id of ids) await actorUntil(gw, "webhook-delivery", id, (actor) => actor.status === "done");

  const counts = await runActors([]);
  expect(counts.code).toBe(0);
  const lines = counts.stdout.trim().split("\n");
  expect(lines[0]!.split(/\s+/)).toEqual(["KIND", "STATE", "STATUS", "COUNT"]);
  expect(lines.map((line) => line.split(/\s+/))).toContainEqual(["webhook-delivery", "delivered", "done", "2"]);

  const one = await runActors(["--", ids[0]!]);
  expect(one.code).toBe(0);
  expect(one.stdout).toContain(`webhook-delivery ${ids[0]}: done in delivered`);
  const transitions = one.stdout.split("\n").slice(2).map((line) => /(\S+ -> \S+)/.exec(line)?.[1]);
  expect(transitions).toEqual(["(start) -> queued", "queued -> attempting", "attempting -> delivered"]);
});

test("an unknown id, or a wrong token, is said and exits non-zero", async () => {
  const unknown = await runActors(["--", "dlv_nobody"]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("no actor has the id 'dlv_nobody'");
  const refused = await runActors([], { GATEWAY_SETUP_TOKEN: "not-the-token" });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain("answered 403");
  expect(refused.stderr).toContain("the setup token is wrong");
});
