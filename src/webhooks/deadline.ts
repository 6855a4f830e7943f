import type { Clock } from "../../actors/runtime/clock";

export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms / 1000}s`);
  }
}

/**
 * Runs `work` with a signal that aborts when `outer` does or when `ms` pass on the clock;
 * the deadline wins even over a step that ignores the signal (a DNS lookup).
 */
export async function withDeadline<T>(clock: Clock, ms: number, outer: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const forward = () => controller.abort(outer.reason);
  outer.addEventListener("abort", forward, { once: true });
  let timer: unknown;
  const deadline = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => {
      const exceeded = new DeadlineExceeded(ms);
      controller.abort(exceeded);
      reject(exceeded);
    }, ms);
  });
  const working = work(controller.signal);
  working.catch(() => undefined);
  try {
    return await Promise.race([working, deadline]);
  } finally {
    clock.clearTimeout(timer);
    outer.removeEventListener("abort", forward);
  }
}
