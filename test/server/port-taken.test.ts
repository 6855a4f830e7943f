import { afterAll, expect, test } from "bun:test";
import { mainProcessWorkspace } from "../support/main-process";

const workspace = mainProcessWorkspace("gateway-port-taken-");
afterAll(() => workspace.remove());

test("a port already in use stops the start with one line naming how to choose another, exit code 2, and nothing printed before", async () => {
  const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("someone else") });
  try {
    // No GATEWAY_SETUP_TOKEN: a gateway that got as far as its database would print a generated one.
    const child = workspace.start(["--port", String(taken.port), "--host", "127.0.0.1"], { GATEWAY_SETUP_TOKEN: "" });
    const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n")).toEqual([expect.stringContaining(`port ${taken.port} on 127.0.0.1 is already in use`)]);
    expect(stderr).toContain("--port");
    expect(stderr).toContain("PORT");
    expect(stderr).toContain("server");
    // The one that listened there still does.
    expect(await (await fetch(`http://127.0.0.1:${taken.port}/`)).text()).toBe("someone else");
  } finally {
    taken.stop(true);
  }
}, 30_000);
