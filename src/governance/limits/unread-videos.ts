import type { Clock } from "../../../actors/runtime/clock";
import type { VideoPoll } from "../../db/schema/types";
import type { VideoCharges } from "./video-charges";

/** How often each node looks for videos whose charges no read has ended. */
export const UNREAD_VIDEOS_SWEEP_MS = 5 * 60_000;

/** How many videos a sweep reads at most, one after another. */
const SWEEP_BATCH = 20;

/** Reads a video; false when its provider no longer has it. */
export type ReadVideo = (provider: string, poll: VideoPoll) => Promise<boolean>;

/**
 * Reads, on `clock`'s schedule, the videos no client has read to their end (`VideoCharges.due`):
 * a video that failed while nobody looked still gives its charge back, and one that was made
 * lets its hold go, as does one its provider no longer has (deleted before it ended). A read that
 * fails is tried again a sweep later, until the hold expires.
 */
export function readUnreadVideos(charges: VideoCharges, read: ReadVideo, clock: Clock, intervalMs = UNREAD_VIDEOS_SWEEP_MS) {
  let timer: unknown;
  let stopped = false;
  let sweeping: Promise<void> = Promise.resolve();
  const sweep = async () => {
    try {
      for (const { provider, videoId, poll } of await charges.due(SWEEP_BATCH)) {
        try {
          if (!(await read(provider, poll))) await charges.gone(provider, videoId);
        } catch (error) {
          console.error(`video charges: reading ${provider}'s ${poll.params.id} failed`, error);
        }
      }
    } catch (error) {
      console.error("video charges: looking for videos nobody read failed", error);
    }
  };
  const arm = () => {
    if (stopped) return;
    timer = clock.setTimeout(() => {
      sweeping = sweep().finally(arm);
    }, intervalMs);
  };
  arm();
  return {
    async stop() {
      stopped = true;
      clock.clearTimeout(timer);
      await sweeping;
    },
  };
}
