/**
 * Preloaded into a measured server (`BUN_OPTIONS=--preload bench/gc-mark.ts`, with
 * `BUN_JSC_logGC=1`): on SIGUSR2 it collects the whole heap and prints a mark, so the bench can
 * count the bytes the main thread allocated between two marks from the collections logged
 * between them (bench/allocations.ts).
 */
process.on("SIGUSR2", () => {
  Bun.gc(true);
  console.error("[gc-mark]");
});
