import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../support/gateway";
import { LISTENING, mainProcessWorkspace, printed } from "../support/main-process";

describe("health for orchestrators", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(() => gateway.close());

  test("/health/live and /health/ready answer 200 without credentials while the gateway serves", async () => {
    const live = await fetch(`${gateway.url}/health/live`);
    expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { status: "ok" } });
    const ready = await fetch(`${gateway.url}/health/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 200, body: { status: "ready", database: "ok", draining: false } });
  });
});

describe("SIGTERM turns /health/ready to 503 on the real process, before connections are refused", () => {
  const workspace = mainProcessWorkspace();
  afterAll(() => workspace.remove());

  test("during server.shutdown_delay_seconds ready is 503 and live 200; a second signal ends the wait and the gateway exits 0", async () => {
    const config = workspace.writeConfig({ server: { shutdown_delay_seconds: 600 } });
    const child = workspace.start(["--config", config, "--port", "0"]);
    const until = printed(child.stdout);
    const [, url] = await until(LISTENING);
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    child.kill("SIGTERM");
    await until(/gateway stopping/);
    const ready = await fetch(`${url}/health/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 503, body: { status: "not_ready", database: "ok", draining: true } });
    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  });
});
