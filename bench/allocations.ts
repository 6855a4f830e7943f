/**
 * Bytes a server's main thread allocates, counted from JavaScriptCore's GC log: the server runs
 * with `BUN_JSC_logGC=1` and bench/gc-mark.ts preloaded; `mark()` has it collect its whole heap
 * and waits for the mark. Between two marks, what the main heap's collections freed (the size
 * each started from less the size it left, as bench/gc-pauses.ts counts it) is what the requests
 * in between allocated and let go. A count, not a time: a busy machine changes when collections
 * happen, not what the requests allocate.
 */
import type { BenchServer } from "./processes";

/**
 * A collection's first line, `[GC<heap>: START M 50181kb => EdenCollection, ...`, and its last,
 * `... => 30062kb, p=2.18ms (max 9.1), cycle 2.3ms END]`: the same line, or a later one of the
 * same heap when the collection ran in increments.
 */
const START = /\[GC<(\w+)>: START \w+ (\d+)kb => \w+Collection/;
const END = /\[GC<(\w+)>: .*=> (\d+)kb, p=[\d.]+ms \(max [\d.]+\), cycle [\d.]+ms END\]/;
const MARK = "[gc-mark]";
const MARK_TIMEOUT_MS = 10_000;

/** What the server needs to be counted: start it with these variables (added to what it gets anyway). */
export const ALLOCATION_ENV = { BUN_JSC_logGC: "1", BUN_OPTIONS: `--preload ${import.meta.dir}/gc-mark.ts` };

export interface AllocationCounter {
  /** Give this every piece of the server's stderr (and stdout), in order. */
  onOutput: (text: string) => void;
  /** Collects the server's heap and resolves once its mark is printed. */
  mark: (server: BenchServer) => Promise<void>;
  /** Bytes the main thread allocated between the last two marks. */
  allocatedBetweenMarks: () => number;
}

interface Collection {
  heap: string;
  beforeKB: number;
  afterKB: number;
}

/** The collections a log slice holds, in the order they ended. */
function collectionsIn(slice: string): Collection[] {
  const started = new Map<string, number>();
  const collections: Collection[] = [];
  for (const line of slice.split("\n")) {
    const start = START.exec(line);
    if (start) started.set(start[1]!, Number(start[2]));
    const end = END.exec(line);
    const beforeKB = end ? started.get(end[1]!) : undefined;
    if (end && beforeKB !== undefined) {
      collections.push({ heap: end[1]!, beforeKB, afterKB: Number(end[2]) });
      started.delete(end[1]!);
    }
  }
  return collections;
}

/**
 * What the main heap's collections freed between the two marks of `slice` (the largest heap is
 * the main thread's; the log writer's thread has a small one of its own). Both marks collect
 * everything, so this is what the main thread allocated in between, less what it still holds.
 */
function allocatedIn(slice: string): number {
  const first = slice.indexOf(MARK);
  const window = collectionsIn(slice.slice(first + MARK.length, slice.indexOf(MARK, first + MARK.length)));
  const mainHeap = window.reduce<Collection | undefined>((largest, collection) => (!largest || collection.beforeKB > largest.beforeKB ? collection : largest), undefined)?.heap;
  const freedKB = window.filter((collection) => collection.heap === mainHeap).reduce((sum, collection) => sum + Math.max(0, collection.beforeKB - collection.afterKB), 0);
  return freedKB * 1024;
}

export function allocationCounter(): AllocationCounter {
  // The output from just before the previous mark's collection on: all a window needs.
  let log = "";
  let windowStart = -1;
  let lastWindowBytes = Number.NaN;
  let waiting: (() => void) | undefined;
  return {
    onOutput: (text) => {
      log += text;
      waiting?.();
    },
    mark: async (server) => {
      const from = log.length;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${server.name} printed no GC mark within ${MARK_TIMEOUT_MS} ms`)), MARK_TIMEOUT_MS);
        waiting = () => {
          if (log.indexOf(MARK, from) === -1) return;
          clearTimeout(timer);
          waiting = undefined;
          resolve();
        };
        process.kill(server.pid, "SIGUSR2");
      });
      if (windowStart !== -1) lastWindowBytes = allocatedIn(log.slice(windowStart, log.indexOf(MARK, from) + MARK.length));
      log = log.slice(from);
      windowStart = 0;
    },
    allocatedBetweenMarks: () => lastWindowBytes,
  };
}
