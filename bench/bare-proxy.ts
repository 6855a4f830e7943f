/**
 * The floor any proxy on this runtime pays: parse the JSON body, forward it with fetch, return
 * the reply (streams pass through). Run as its own process: `bare-proxy.ts <upstream url>`.
 * A GET answers at once, as a health route would: the slow-upstream scenario probes it.
 */
import { exitWhenParentLeaves } from "./child-lifetime";

const upstream = Bun.argv[2]!;

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(request) {
    if (request.method === "GET") return new Response("ok");
    const body = (await request.json()) as { model: string };
    body.model = body.model.slice(body.model.indexOf("/") + 1);
    const reply = await fetch(upstream + new URL(request.url).pathname, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-bench-upstream" },
      body: JSON.stringify(body),
    });
    return new Response(reply.body, { status: reply.status, headers: { "content-type": reply.headers.get("content-type") ?? "application/json" } });
  },
});

exitWhenParentLeaves();
console.log(`bench bare proxy listening on http://127.0.0.1:${server.port}`);
