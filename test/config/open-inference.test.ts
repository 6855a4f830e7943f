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
  test("on 0.0.0.0 with inference open and no choice made, it refuses to start with exit code 2 and says how to choose", async () => {
    const { listened, code, stderr } = await startOn("0.0.0.0");
    expect({ listened, code }).toEqual({ listened: false, code: 2 });
    expect(stderr).toContain("refusing to start");
    expect(stderr).toContain('"enforce_auth_on_inference": true');
    expect(stderr).toContain('"allow_open_inference": true');
    expect(stderr).toContain("GATEWAY_ALLOW_OPEN_INFERENCE=true");
  });

  test("enforcing virtual keys on inference is a choice: it starts", async () => {
    expect(await startOn("0.0.0.0", { enforce_auth_on_inference: true })).toMatchObject({ listened: true, code: 0 });
  });

  test("allow_open_inference: true is a choice: it starts", async () => {
    expect(await startOn("0.0.0.0", { allow_open_inference: true })).toMatchObject({ listened: true, code: 0 });
  });

  test("GATEWAY_ALLOW_OPEN_INFERENCE=true is the same choice, for a container without a config file", async () => {
    expect(await startOn("0.0.0.0", {}, { GATEWAY_ALLOW_OPEN_INFERENCE: "true" })).toMatchObject({ listened: true, code: 0 });
  });

  test("loopback needs no choice, as before", async () => {
    expect(await startOn("127.0.0.1")).toMatchObject({ listened: true, code: 0 });
    expect(await startOn("localhost")).toMatchObject({ listened: true, code: 0 });
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
