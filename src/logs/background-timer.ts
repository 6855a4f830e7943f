/** A timeout that does not keep a stopping process alive; owners flush or stop explicitly. */
export function backgroundTimeout(callback: () => void, delayMs: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(callback, delayMs);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
