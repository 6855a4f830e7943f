import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { FileLogSink } from "../config/sections/log-sinks";
import type { Batch, SinkTarget } from "./targets";

const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
const DEFAULT_MAX_FILES = 5;

const sizeOf = (path: string) => stat(path).then((found) => found.size, () => 0);

/** `path` becomes `path.1`, `path.1` becomes `path.2`...; what would pass `maxFiles` is deleted. */
async function rotate(path: string, maxFiles: number): Promise<void> {
  await rm(`${path}.${maxFiles}`, { force: true });
  for (let index = maxFiles - 1; index >= 1; index--) await rename(`${path}.${index}`, `${path}.${index + 1}`).catch(() => undefined);
  await rename(path, `${path}.1`);
}

/** Whether the file's last byte is a line's end: a process killed mid-append may have left half a line. */
async function endsWithNewline(path: string, size: number): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

/**
 * Appends each batch to a JSON lines file and syncs it to disk before the batch counts as
 * delivered; rotates by size first. A batch appended again after a crash repeats its lines
 * (at least once); half a line left by a crash ends where the next batch begins on a line of its own.
 */
export function fileTarget(sink: FileLogSink): SinkTarget {
  const maxBytes = sink.max_bytes ?? DEFAULT_MAX_BYTES;
  const maxFiles = sink.max_files ?? DEFAULT_MAX_FILES;
  return {
    async send(batch: Batch) {
      await mkdir(dirname(sink.path), { recursive: true });
      let size = await sizeOf(sink.path);
      const bytes = Buffer.byteLength(batch.lines);
      if (size > 0 && size + bytes > maxBytes) {
        await rotate(sink.path, maxFiles);
        size = 0;
      }
      const text = size > 0 && !(await endsWithNewline(sink.path, size)) ? `\n${batch.lines}` : batch.lines;
      const handle = await open(sink.path, "a");
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
  };
}
