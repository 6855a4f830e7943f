import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SETUP_TOKEN_HEADER } from "../../src/access/setup-lock";
import { eventually } from "../support/eventually";
import { LIBSQL_SERVER_BINARY, type LibsqlServer, startLibsqlServer } from "../support/libsql-server";
import { type GatewayProcess, mainProcessWorkspace, startGatewayProcess } from "../support/main-process";
import { type MockOpenAI, type RecordedRequest, startMockOpenAI } from "../support/mock-openai";
import { replicaNodeVariables } from "../support/replicas";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";

/**
 * Two gateway processes in two regions, each on an embedded replica of one libSQL primary (JWT
 * auth on): the node running an async job is killed (SIGKILL) while its upstream call is out, and
 * the other node takes the job over once the killed node's lease has run out.
 */

const SETUP_TOKEN = "takeover-setup-token";
/** Short enough for a test; the default (30 s) is what a deployment waits for a dead node's jobs. */
const LEASE_SECONDS = 1;
const PROMPT = "finished by whichever node lives";

let upstream: MockOpenAI;
let receiver: WebhookReceiver;
let primary: LibsqlServer;
const workspace = mainProcessWorkspace("gateway-takeover-");
const started: GatewayProcess[] = [];

beforeAll(async () => {
  upstream = startMockOpenAI();
  receiver = startWebhookReceiver();
  primary = await startLibsqlServer({ jwt: true });
});
afterAll(async () => {
  await Promise.all(started.map((node) => node.stop()));
  await primary?.stop();
  upstream.stop();
  receiver.stop();
  workspace.remove();
});

/** A gateway process in `region`, on a replica of its own of the primary. */
async function startNode(region: string): Promise<GatewayProcess> {
  const config = workspace.writeConfig({
    setup_token: SETUP_TOKEN,
    providers: { openai: { keys: [{ id: "k1", value: "sk-upstream" }], network_config: { base_url: upstream.baseUrl, max_retries: 0 } } },
  });
  const replicaDir = mkdtempSync(join(tmpdir(), `takeover-${region}-`));
  const node = await startGatewayProcess(config, {
    ...replicaNodeVariables(primary, join(replicaDir, "replica.db"), region),
    GATEWAY_ENCRYPTION_KEY: "takeover-test-key",
    GATEWAY_ACTOR_LEASE_SECONDS: String(LEASE_SECONDS),
  });
  started.push(node);
  node.child.exited.then(() => rmSync(replicaDir, { recursive: true, force: true }));
  return node;
}

const admin = (node: GatewayProcess, path: string, init: RequestInit = {}) =>
  fetch(`${node.url}${path}`, { ...init, headers: { [SETUP_TOKEN_HEADER]: SETUP_TOKEN, "content-type": "application/json", ...init.headers } });
const promptOf = (request: RecordedRequest) => (request.body.messages as Array<{ content: string }>)[0]!.content;
const jobOn = async (node: GatewayProcess, id: string) => (await (await fetch(`${node.url}/v1/async/chat/completions/${id}`)).json()) as { status: string; result?: unknown };

test.skipIf(!LIBSQL_SERVER_BINARY)(
  "a node killed (SIGKILL) mid-job leaves the job to the other node once its lease runs out: one result, one webhook",
  async () => {
    const eu = await startNode("eu");
    const us = await startNode("us");
    const created = await admin(eu, "/api/webhooks", { method: "POST", body: JSON.stringify({ name: "takeover", url: `${receiver.url}/takeover`, allow_private_network: true }) });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    receiver.secrets.set("/takeover", secret);

    // The first call upstream (eu's) never gets its answer; the next one (us's) does.
    const arrived = Promise.withResolvers<void>();
    upstream.onRequest = async () => {
      upstream.onRequest = undefined;
      arrived.resolve();
      await new Promise(() => undefined);
    };
    const submitted = await fetch(`${eu.url}/v1/async/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gw-async-webhook": "takeover" },
      body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: PROMPT }] }),
    });
    expect(submitted.status).toBe(202);
    const job = (await submitted.json()) as { id: string };
    await arrived.promise;
    // The other node sees the job, running, once its replica has synced.
    expect((await eventually(() => jobOn(us, job.id), (found) => found.status === "processing")).status).toBe("processing");

    eu.child.kill("SIGKILL");
    await eu.child.exited;
    const killedAt = performance.now();

    const [delivery] = await receiver.arrivals(1);
    const tookOverMs = performance.now() - killedAt;
    expect(delivery!.path).toBe("/takeover");
    expect(delivery!.payload.data.job_id).toBe(job.id);
    expect(delivery!.payload.data.status).toBe("completed");
    // Not before the lease ran out (renewed at most a third of it before the kill), and not long after.
    expect(tookOverMs).toBeGreaterThan(((LEASE_SECONDS * 2) / 3) * 1000 - 200);
    expect(tookOverMs).toBeLessThan((LEASE_SECONDS + 5) * 1000);

    const finished = await jobOn(us, job.id);
    expect(finished.status).toBe("completed");
    expect(JSON.stringify(finished.result)).toContain(`echo: ${PROMPT}`);
    // The killed node's call and the survivor's: the job ran once more, not twice more.
    expect(upstream.requests.map(promptOf)).toEqual([PROMPT, PROMPT]);
    // The history the survivor recorded holds one delivery, delivered; the receiver got that one.
    const history = await eventually(
      async () => (await (await admin(us, `/api/webhooks/deliveries?job_id=${job.id}`)).json()) as { deliveries: Array<{ status: string }> },
      (found) => found.deliveries.every((entry) => entry.status === "delivered"),
    );
    expect(history.deliveries.map((entry) => entry.status)).toEqual(["delivered"]);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.rejected).toEqual([]);
  },
  60_000,
);

test("a lease or a replica's sync interval that is no number of seconds above 0 stops the start, naming the variable", async () => {
  const cases = ["GATEWAY_ACTOR_LEASE_SECONDS", "GATEWAY_DB_SYNC_INTERVAL"].flatMap((variable) => ["0", "soon", "Infinity"].map((value) => ({ variable, value })));
  // Each start is a process of its own that stops at once: they run side by side.
  const outcomes = await Promise.all(
    cases.map(async ({ variable, value }) => {
      const child = workspace.start(["--port", "0", "--config", workspace.writeConfig({})], { [variable]: value });
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
      return { variable, value, code, stderr };
    }),
  );
  for (const { variable, value, code, stderr } of outcomes) {
    expect({ variable, value, code }).toEqual({ variable, value, code: 2 });
    expect(stderr).toContain(`${variable} must be a number of seconds above 0, not '${value}'`);
  }
});
