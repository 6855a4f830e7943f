import { afterAll, describe, expect, test } from "bun:test";
import { LISTENING, mainProcessWorkspace, printed } from "../support/main-process";

const workspace = mainProcessWorkspace("gateway-exposed-");
afterAll(() => workspace.remove());

/** The gateway started as a user would, until it either listens (then SIGTERM) or exits by itself. */
async function startOn(host: string, config: unknown = {}, env: Record<string, string> = {}) {
  const child = workspace.start(["--config", workspace.writeConfig(config), "--port", "0", "--host", host], env);
  const stderr = new Response(child.stderr).text();
  const listening = printed(child.stdout)(LISTENING).then(
    ([, url]) => url!,
    () => undefined,
  );
  const url = await listening;
  if (url) {
    const port = new URL(url).port;
    const health = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(health.status).toBe(200);
    child.kill("SIGTERM");
  }
  return { listened: url !== undefined, code: await child.exited, stderr: await stderr };
}

describe("protected mode: reachable from other machines, inference open only by choice", () => {
  // The starts below are processes of their own, each on a database of its own: they run side by side.
  test.concurrent("on 0.0.0.0 with inference open and no choice made, it refuses to start with exit code 2 and says how to choose", async () => {
    const { listened, code, stderr } = await startOn("0.0.0.0");
    expect({ listened, code }).toEqual({ listened: false, code: 2 });
    expect(stderr).toContain("refusing to start");
    expect(stderr).toContain('"enforce_auth_on_inference": true');
    expect(stderr).toContain('"allow_open_inference": true');
    expect(stderr).toContain("GATEWAY_ALLOW_OPEN_INFERENCE=true");
  });

  test.concurrent("enforcing virtual keys on inference is a choice: it starts", async () => {
    expect(await startOn("0.0.0.0", { enforce_auth_on_inference: true })).toMatchObject({ listened: true, code: 0 });
  });

  test.concurrent("allow_open_inference: true is a choice: it starts", async () => {
    expect(await startOn("0.0.0.0", { allow_open_inference: true })).toMatchObject({ listened: true, code: 0 });
  });

  test.concurrent("GATEWAY_ALLOW_OPEN_INFERENCE=true is the same choice, for a container without a config file", async () => {
    expect(await startOn("0.0.0.0", {}, { GATEWAY_ALLOW_OPEN_INFERENCE: "true" })).toMatchObject({ listened: true, code: 0 });
  });

  test.concurrent("loopback needs no choice, as before", async () => {
    const [loopback, localhost] = await Promise.all([startOn("127.0.0.1"), startOn("localhost")]);
    expect(loopback).toMatchObject({ listened: true, code: 0 });
    expect(localhost).toMatchObject({ listened: true, code: 0 });
  });

  test("enforcement turned on with PUT /api/config and kept in the database counts at the next start", async () => {
    const database = `file:${workspace.path("enforced.sqlite")}`;
    const child = workspace.start(["--config", workspace.writeConfig({ setup_token: "exposed-setup" }), "--port", "0"], { GATEWAY_DB_URL: database });
    const [, url] = await printed(child.stdout)(LISTENING);
    const put = await fetch(`${url}/api/config`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-gateway-setup-token": "exposed-setup" },
      body: JSON.stringify({ enforce_auth_on_inference: true }),
    });
    expect(put.status).toBe(200);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect(await startOn("0.0.0.0", {}, { GATEWAY_DB_URL: database })).toMatchObject({ listened: true, code: 0 });
  });
});

describe("reachable from other machines, PUT /api/config cannot open inference behind the operator's back", () => {
  /** A gateway on 0.0.0.0 with virtual keys enforced, and what turning enforcement off through the API answers. */
  async function turnEnforcementOff(config: Record<string, unknown>) {
    const child = workspace.start(["--config", workspace.writeConfig({ setup_token: "exposed-setup", enforce_auth_on_inference: true, ...config }), "--port", "0", "--host", "0.0.0.0"]);
    try {
      const [, url] = await printed(child.stdout)(LISTENING);
      const local = `http://127.0.0.1:${new URL(url!).port}`;
      const headers = { "content-type": "application/json", "x-gateway-setup-token": "exposed-setup" };
      const put = await fetch(`${local}/api/config`, { method: "PUT", headers, body: JSON.stringify({ enforce_auth_on_inference: false }) });
      const settings = (await (await fetch(`${local}/api/config`, { headers })).json()) as { enforce_auth_on_inference: boolean };
      return { status: put.status, body: (await put.json()) as { error: { param?: string; message: string } }, enforced: settings.enforce_auth_on_inference };
    } finally {
      child.kill("SIGTERM");
      await child.exited;
    }
  }

  test("without allow_open_inference the change is a 400 naming the field, and virtual keys stay required", async () => {
    const { status, body, enforced } = await turnEnforcementOff({});
    expect({ status, param: body.error.param, enforced }).toEqual({ status: 400, param: "enforce_auth_on_inference", enforced: true });
    expect(body.error.message).toContain("allow_open_inference");
  });

  test("with allow_open_inference the operator may open it", async () => {
    const { status, enforced } = await turnEnforcementOff({ allow_open_inference: true });
    expect({ status, enforced }).toEqual({ status: 200, enforced: false });
  });
});
