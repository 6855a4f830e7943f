/**
 * JavaScriptCore writes a JITDump (`BUN_JSC_useJITDump=1`) naming every piece of code it compiles.
 * `perf report` names JIT samples from a perf map (/tmp/perf-<pid>.map), so the profiler turns
 * the one into the other. Format: https://github.com/torvalds/linux/blob/master/tools/perf/Documentation/jitdump-specification.txt
 */
import { readFileSync, writeFileSync } from "node:fs";

interface CodeLoad {
  start: bigint;
  end: bigint;
  name: string;
}

const CODE_LOAD = 0;
/** A JIT_CODE_LOAD record: the 16-byte record header, then pid, tid, vma, code_addr, code_size, code_index, then the name. */
const CODE_ADDRESS_AT = 32;
const CODE_SIZE_AT = 40;
const NAME_AT = 56;

function codeLoads(dump: Buffer): CodeLoad[] {
  const view = new DataView(dump.buffer, dump.byteOffset, dump.byteLength);
  const loads: CodeLoad[] = [];
  // The file header's third field is its own size.
  for (let at = view.getUint32(8, true); at + 16 <= dump.length; ) {
    const kind = view.getUint32(at, true);
    const size = view.getUint32(at + 4, true);
    if (size === 0 || at + size > dump.length) break;
    if (kind === CODE_LOAD) {
      const start = view.getBigUint64(at + CODE_ADDRESS_AT, true);
      const nameEnd = dump.indexOf(0, at + NAME_AT);
      loads.push({ start, end: start + view.getBigUint64(at + CODE_SIZE_AT, true), name: dump.toString("utf8", at + NAME_AT, nameEnd) });
    }
    at += size;
  }
  return loads;
}

/**
 * Writes the perf map of process `pid` from its JITDump. JIT code is freed and its addresses
 * reused, so where loads overlap the latest wins: a profile taken after warm-up sees that code.
 */
export function writePerfMap(dumpPath: string, pid: number): string {
  const kept: CodeLoad[] = [];
  for (const load of codeLoads(readFileSync(dumpPath)).reverse()) {
    if (!kept.some((later) => later.start < load.end && load.start < later.end)) kept.push(load);
  }
  const mapPath = `/tmp/perf-${pid}.map`;
  writeFileSync(mapPath, kept.map((load) => `${load.start.toString(16)} ${(load.end - load.start).toString(16)} ${load.name}\n`).join(""));
  return mapPath;
}
