import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@libsql/client";
import { ON_LIBSQL_SERVER, startGateway, type TestGateway } from "../support/gateway";
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

// The embedded file is opened by a second client here; a libSQL server's files are its own.
describe.skipIf(ON_LIBSQL_SERVER)("a database without the migrations this gateway relies on", () => {
  test("makes /health/ready 503 not_migrated (a restore from an older backup under a running node), while /health/live stays 200", async () => {
    const gateway = await startGateway();
    try {
      const database = createClient({ url: gateway.databaseUrl });
      await database.execute("DELETE FROM __drizzle_migrations WHERE rowid = (SELECT max(rowid) FROM __drizzle_migrations)");
      database.close();
      const ready = await fetch(`${gateway.url}/health/ready`);
      expect({ status: ready.status, body: await ready.json() }).toEqual({ status: 503, body: { status: "not_ready", database: "not_migrated", draining: false } });
      expect((await fetch(`${gateway.url}/health/live`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
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
