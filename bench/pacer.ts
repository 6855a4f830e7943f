/**
 * The fixed-rate clock of the load generator, as a separate process: Bun's timers fire on a
 * 1 ms grid, so a 2,000 req/s schedule driven by them would send requests in bursts. This
 * process sleeps with Atomics.wait (sub-millisecond, no CPU spent) and writes one byte to
 * stdout per tick; the pipe wakes the load generator's event loop at once.
 * Usage: `pacer.ts <interval µs> <ticks>`; it stops after the ticks or when the pipe closes.
 */
import { writeSync } from "node:fs";

const [intervalMicros = 500, ticks = 0] = Bun.argv.slice(2).map(Number);
const parked = new Int32Array(new SharedArrayBuffer(4));
const tick = new Uint8Array([1]);
const start = Bun.nanoseconds();

for (let index = 1; index <= ticks; index++) {
  const waitMs = (start + index * intervalMicros * 1000 - Bun.nanoseconds()) / 1e6;
  if (waitMs > 0) Atomics.wait(parked, 0, 0, waitMs);
  try {
    writeSync(1, tick);
  } catch {
    break;
  }
}
