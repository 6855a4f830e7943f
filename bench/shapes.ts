/**
 * Traffic as it arrives in bulk, measured on the bare proxy and the gateway in turn: many
 * streams open at once, each a slow model sending a token at a time, and a slow upstream holding
 * thousands of requests in flight while the gateway's own routes must still answer.
 */
import { SETUP_TOKEN_HEADER } from "../src/access/setup-lock";
import { BENCH_SETUP_TOKEN } from "./gateway-config";
import { type BenchServer, settled, spawnTracked, treeRssMBOf } from "./processes";
import { runLoad } from "./run-load";
import { SampleLog, type Summary, summarize } from "./samples";
import type { StreamPlan, StreamResult } from "./stream-holder";

export interface StreamRun extends StreamResult {
  rssBeforeMB: number;
  rssPeakMB: number;
  /** (peak RSS − RSS before) over the most streams open at once, KB. */
  rssKBPerStream: number;
}

export interface SlowUpstreamResult {
  inFlight: number;
  upstreamMs: number;
  /** The gateway's own routes, probed one request at a time while the slow requests are in flight. */
  routes: { name: string; latencyMs: Summary }[];
  proxyHealthMs: Summary;
  gatewayCompleted: number;
  gatewayErrors: number;
  proxyCompleted: number;
  proxyErrors: number;
}

export interface ShapeResults {
  streams?: { asked: number; intervalMs: number; tokens: number; direct: StreamRun; proxy: StreamRun; gateway: StreamRun };
  slow?: SlowUpstreamResult;
}

export const STREAM_SHAPE = { intervalMs: 50, tokens: 400 };
export const SLOW_SHAPE = { inFlight: 2_000, upstreamMs: 2_000, seconds: 6, rounds: 2 };

const chatPath = "/v1/chat/completions";

/** Opens `streams` slow streams against one target and watches its RSS while they are open. */
async function holdStreams(server: BenchServer, streams: number): Promise<StreamRun> {
  await settled(server.pid);
  const rssBeforeMB = treeRssMBOf(server.pid);
  const plan: StreamPlan = {
    port: server.port,
    path: chatPath,
    body: { model: `openai/bench-ticks-${STREAM_SHAPE.intervalMs}x${STREAM_SHAPE.tokens}`, messages: [{ role: "user", content: "count slowly" }], stream: true },
    streams,
    limitMs: STREAM_SHAPE.intervalMs * STREAM_SHAPE.tokens + 60_000,
  };
  const child = spawnTracked([process.execPath, `${import.meta.dir}/stream-holder.ts`]);
  void child.stdin.write(JSON.stringify(plan));
  void child.stdin.end();
  let rssPeakMB = rssBeforeMB;
  const sampler = setInterval(() => (rssPeakMB = Math.max(rssPeakMB, treeRssMBOf(server.pid))), 250);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearInterval(sampler);
  if (code !== 0) throw new Error(`stream holder failed (exit ${code}):\n${stderr}`);
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as StreamResult;
  return { ...result, rssBeforeMB, rssPeakMB, rssKBPerStream: ((rssPeakMB - rssBeforeMB) * 1024) / Math.max(1, result.opened) };
}

/** Probes `url` one request at a time until `until` (ms since the epoch), returning the latencies in ms. */
async function probe(url: string, headers: Record<string, string>, until: number): Promise<number[]> {
  const samples: number[] = [];
  while (Date.now() < until) {
    const started = Bun.nanoseconds();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url} answered ${response.status} during the slow-upstream scenario`);
    samples.push((Bun.nanoseconds() - started) / 1e6);
    await Bun.sleep(20);
  }
  return samples;
}

/** One round of SLOW_SHAPE.inFlight slow requests on `server`, its routes probed meanwhile. */
async function slowRound(server: BenchServer, routes: { name: string; path: string; headers: Record<string, string> }[]) {
  await settled(server.pid);
  const load = runLoad(
    {
      mode: "saturate",
      port: server.port,
      path: chatPath,
      body: { model: `openai/bench-slow-${SLOW_SHAPE.upstreamMs}`, messages: [{ role: "user", content: "take your time" }] },
      connections: SLOW_SHAPE.inFlight,
      durationMs: SLOW_SHAPE.seconds * 1000,
    },
    server.pid,
  );
  // Probing starts once the connections are open and their first requests wait on the upstream.
  await Bun.sleep(1000);
  const until = Date.now() + (SLOW_SHAPE.seconds - 1.5) * 1000;
  const latencies = await Promise.all(routes.map((route) => probe(server.url + route.path, route.headers, until)));
  return { measured: await load, latencies };
}

/**
 * The many-streams shape: the mock directly (what the machine itself delays), the bare proxy,
 * then the gateway, each holding `streams` streams (`streams` 0 skips it); then the slow
 * upstream, rounds alternating between the bare proxy and the gateway.
 */
export async function measureShapes(direct: BenchServer, proxy: BenchServer, gateway: BenchServer, streams: number): Promise<ShapeResults> {
  const results: ShapeResults = {};
  if (streams > 0) {
    console.error(`measuring ${streams.toLocaleString("en-US")} open streams…`);
    const directRun = await holdStreams(direct, streams);
    const proxyRun = await holdStreams(proxy, streams);
    const gatewayRun = await holdStreams(gateway, streams);
    results.streams = { asked: streams, ...STREAM_SHAPE, direct: directRun, proxy: proxyRun, gateway: gatewayRun };
  }
  console.error("measuring a slow upstream…");
  const admin = { [SETUP_TOKEN_HEADER]: BENCH_SETUP_TOKEN };
  const gatewayRoutes = [
    { name: "GET /health", path: "/health", headers: {} },
    { name: "GET /api/governance/virtual-keys", path: "/api/governance/virtual-keys", headers: admin },
  ];
  const all = { proxy: [] as Awaited<ReturnType<typeof slowRound>>[], gateway: [] as Awaited<ReturnType<typeof slowRound>>[] };
  for (let round = 0; round < SLOW_SHAPE.rounds; round++) {
    all.proxy.push(await slowRound(proxy, [{ name: "GET /health", path: "/health", headers: {} }]));
    all.gateway.push(await slowRound(gateway, gatewayRoutes));
  }
  // The probes of every round together: p99 over a few hundred probes a round.
  const pooled = (rounds: typeof all.proxy, index: number) => {
    const samples = new SampleLog();
    for (const round of rounds) for (const value of round.latencies[index]!) samples.add(value);
    return summarize(samples);
  };
  const sum = (rounds: typeof all.proxy, pick: (round: (typeof all.proxy)[number]) => number) => rounds.reduce((total, round) => total + pick(round), 0);
  results.slow = {
    inFlight: SLOW_SHAPE.inFlight,
    upstreamMs: SLOW_SHAPE.upstreamMs,
    routes: gatewayRoutes.map((route, index) => ({ name: route.name, latencyMs: pooled(all.gateway, index) })),
    proxyHealthMs: pooled(all.proxy, 0),
    gatewayCompleted: sum(all.gateway, (round) => round.measured.completed),
    gatewayErrors: sum(all.gateway, (round) => round.measured.errors),
    proxyCompleted: sum(all.proxy, (round) => round.measured.completed),
    proxyErrors: sum(all.proxy, (round) => round.measured.errors),
  };
  return results;
}
