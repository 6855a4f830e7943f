import type { LoadPlan, LoadResult } from "./load-generator";
import { spawnTracked, treeCpuSecondsOf } from "./processes";

export interface Measured extends LoadResult {
  /** CPU time the measured server spent per completed request, µs (its process and any under it, such as nginx's workers). */
  serverCpuMicrosPerRequest: number;
  /** Bytes the server's main thread allocated a request (bench/allocations.ts), where it was counted. */
  allocatedBytesPerRequest?: number;
}

// An overloaded peer (Portkey at 2,000 req/s) takes many seconds to answer the backlog of a fixed-rate run.
const HARD_LIMIT_MS = 120_000;

/** Runs the load generator in its own process against one server and reads that server's CPU time around the run. */
export async function runLoad(plan: LoadPlan, serverPid: number): Promise<Measured> {
  const cpuBefore = treeCpuSecondsOf(serverPid);
  const child = spawnTracked([process.execPath, `${import.meta.dir}/load-generator.ts`], { timeout: plan.durationMs + HARD_LIMIT_MS });
  void child.stdin.write(JSON.stringify(plan));
  void child.stdin.end();
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`load generator failed (exit ${code}):\n${stderr}`);
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as LoadResult;
  const cpuMicros = (treeCpuSecondsOf(serverPid) - cpuBefore) * 1e6;
  return { ...result, serverCpuMicrosPerRequest: cpuMicros / Math.max(1, result.completed + result.errors) };
}
