import { afterAll, expect, test } from "bun:test";
import { LISTENING, mainProcessWorkspace, printed, REPO_ROOT } from "../support/main-process";

const workspace = mainProcessWorkspace("gateway-npm-start-");
let npm: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => {
  // Whatever the process group still holds (a gateway the signal never reached) goes with it, even after a timeout.
  try {
    if (npm) process.kill(-npm.pid, "SIGKILL");
  } catch {
    // The group is gone already: nothing was left behind.
  }
  workspace.remove();
});

test("SIGTERM to the `npm start` process reaches the gateway: it drains, exits, and leaves nothing serving", async () => {
  // In a session of its own, so whatever it leaves behind can be found and ended as a group.
  npm = Bun.spawn(["setsid", "npm", "start", "--", "--port", "0"], {
    cwd: REPO_ROOT,
    env: { ...process.env, GATEWAY_DB_URL: `file:${workspace.path("npm.sqlite")}`, GATEWAY_ENCRYPTION_KEY: "npm-start-key" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const until = printed(npm.stdout as ReadableStream<Uint8Array>);
  const [, url] = await until(LISTENING);
  expect((await fetch(`${url}/health/live`)).status).toBe(200);
  npm.kill("SIGTERM");
  await until(/gateway stopping/);
  expect(await npm.exited).toBe(0);
  await expect(fetch(`${url}/health/live`)).rejects.toThrow();
});
