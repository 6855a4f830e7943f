/**
 * Starting what the benches measure, as `npm start` would, and bringing a target to steady state:
 * shared by the overhead bench and the profiler.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SETUP_TOKEN_HEADER } from "../src/access/setup-lock";
import { BENCH_SETUP_TOKEN, benchGatewayConfig } from "./gateway-config";
import type { LoadPlan } from "./load-generator";
import { type BenchServer, jitCpuSecondsOf, startServer } from "./processes";
import { runLoad } from "./run-load";
import type { AdminFetch, Scenario } from "./scenarios";

const repoRoot = resolve(import.meta.dir, "..");
const bun = process.execPath;

/** The variables `npm start` sets before it runs the gateway (`NAME=${NAME:-default}` in package.json), so a bench measures the gateway as it is started. */
export function startScriptEnv(): Record<string, string> {
  const { scripts } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: { start: string } };
  const env: Record<string, string> = {};
  for (const [, name, fallback] of scripts.start.matchAll(/(\w+)=\$\{\w+:-([^}]*)\}/g)) env[name!] = process.env[name!] ?? fallback!;
  return env;
}

export function startMockUpstream(): Promise<BenchServer> {
  return startServer("mock upstream", [bun, `${import.meta.dir}/mock-upstream.ts`]);
}

export function startBareProxy(mock: BenchServer, env: Record<string, string> = {}, onOutput?: (text: string) => void): Promise<BenchServer> {
  return startServer("bare proxy", [bun, `${import.meta.dir}/bare-proxy.ts`, mock.url], { env: { ...process.env, ...env }, onOutput });
}

/**
 * The gateway over the bench config, its database in `workDir`; `env` is added to what `npm start`
 * sets. `tree` is the checkout it runs from (another worktree, to compare two builds).
 */
export function startGateway(workDir: string, mock: BenchServer, env: Record<string, string> = {}, tree = repoRoot, name = "gateway", onOutput?: (text: string) => void): Promise<BenchServer> {
  const configPath = join(workDir, "config.json");
  writeFileSync(configPath, JSON.stringify(benchGatewayConfig(mock.url, env.BENCH_EXPORTS === "1" ? { workDir } : undefined)));
  // The bun binary itself rather than `npx bun`, so the pid is the gateway's and its RSS can be read.
  return startServer(name, [bun, "src/main.ts", "--port", "0", "--config", configPath], {
    cwd: tree,
    env: { ...process.env, ...startScriptEnv(), ...env, GATEWAY_DB_URL: `file:${join(workDir, "gateway.db")}`, GATEWAY_ENCRYPTION_KEY: "bench-encryption-key" },
    onOutput,
  });
}

/** The load every bench sends: a fixed rate on a few connections (the latency targets), or saturation on many. */
export const LOAD = { rate: 2_000, rateConnections: 16, connections: 64 };

/** One run of `scenario` against `server` for `seconds`, at the fixed rate or saturating it. */
export function loadPlan(scenario: Scenario, server: BenchServer, headers: Record<string, string> | undefined, mode: LoadPlan["mode"], seconds: number, rate = LOAD.rate): LoadPlan {
  const connections = mode === "rate" ? LOAD.rateConnections : LOAD.connections;
  return { mode, port: server.port, path: scenario.path, body: scenario.body, headers, connections, durationMs: seconds * 1000, rate };
}

/** Sends JSON to the gateway's management API (POST unless told) with the setup token; a refusal stops the bench. */
export function adminOf(gateway: BenchServer, method = "POST"): AdminFetch {
  return async (path, json) => {
    const response = await fetch(gateway.url + path, {
      method,
      headers: { "content-type": "application/json", [SETUP_TOKEN_HEADER]: BENCH_SETUP_TOKEN },
      body: JSON.stringify(json),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`gateway answered ${method} ${path} with ${response.status}:\n${text.slice(0, 500)}`);
    return JSON.parse(text) as unknown;
  };
}

/** A JIT compiler using less than this share of a core over a warm-up slice counts as quiet. */
export const JIT_QUIET_SHARE = 0.02;

/**
 * Saturation load, not counted, in slices of `sliceSeconds` until the target's JIT compiler has
 * gone quiet (or `limitSeconds` have passed); returns the seconds it took. Measured before that,
 * a target pays for compiling its own request path, once after it starts, on top of what each
 * request costs: the bare proxy's few lines compile within the first second, the gateway's path
 * takes several.
 */
export async function warmUp(saturation: (seconds: number) => LoadPlan, server: BenchServer, sliceSeconds: number, limitSeconds: number): Promise<number> {
  let elapsed = 0;
  while (elapsed < limitSeconds) {
    const compiledBefore = jitCpuSecondsOf(server.pid);
    await runLoad(saturation(sliceSeconds), server.pid);
    elapsed += sliceSeconds;
    if (jitCpuSecondsOf(server.pid) - compiledBefore < JIT_QUIET_SHARE * sliceSeconds) break;
  }
  return elapsed;
}
