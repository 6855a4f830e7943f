import type { PrimaryMessage, WorkerMessage } from "./messages";
import { SharedCounters } from "./shared-counters";

/**
 * A worker's channel to the first process that started it: the counters it shares, `ready`
 * to say it listens, and `lost`, called once when the first process is gone.
 */
export function connectToFirstProcess(lost: () => void) {
  const send = (message: WorkerMessage) => void process.send!(message);
  const counters = new SharedCounters(send);
  process.on("message", (message: PrimaryMessage) => counters.receive(message));
  process.once("disconnect", () => {
    counters.disconnected();
    lost();
  });
  return { counters, ready: () => send({ type: "ready" }) };
}
