/**
 * Preloaded into a measured server (`BUN_OPTIONS=--preload bench/heap-probe.ts`, with
 * `BUN_JSC_logGC=1`): on SIGUSR1 it prints JavaScriptCore's heap statistics without collecting
 * (its capacity, and its objects by type, dead ones not yet swept among them); on SIGUSR2 it
 * collects the whole heap and prints a mark (bench/gc-mark.ts). bench/allocation-sources.ts reads both.
 */
import { heapStats } from "bun:jsc";
import "./gc-mark";

process.on("SIGUSR1", () => {
  const stats = heapStats();
  console.error(`[heap-probe]${JSON.stringify({ heapSize: stats.heapSize, heapCapacity: stats.heapCapacity, extraMemorySize: stats.extraMemorySize, objectTypeCounts: stats.objectTypeCounts })}[/heap-probe]`);
});
