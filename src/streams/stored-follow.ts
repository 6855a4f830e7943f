import { and, asc, eq, gt } from "drizzle-orm";
import type { Database } from "../db/client";
import { resumableStreamEvents, resumableStreams } from "../db/schema";
import type { StreamFollower } from "./live-stream";

/** Events read per query: a long stream is read in pages. */
const PAGE = 500;

const EXPIRED = "the stream expired or was evicted while it was read";

/**
 * Follows a stream through the database, for a node that does not hold it (or once it has
 * ended): the events after `after`, then every `followMs` those stored since, until the stream's
 * row says it ended. Its state is read before its events: a stream's last events are written
 * before its end, so an ended state read first means the events read after it are all there is.
 */
export function storedFollow(db: Database, id: string, after: number, followMs: number, follower: StreamFollower): () => void {
  let stopped = false;
  const run = async () => {
    let last = after;
    while (!stopped) {
      const row = await db.select({ state: resumableStreams.state, error: resumableStreams.error }).from(resumableStreams).where(eq(resumableStreams.id, id)).get();
      if (!row) return follower.end(EXPIRED);
      let page: Array<{ seq: number; event: string }>;
      do {
        page = await db
          .select({ seq: resumableStreamEvents.seq, event: resumableStreamEvents.event })
          .from(resumableStreamEvents)
          .where(and(eq(resumableStreamEvents.streamId, id), gt(resumableStreamEvents.seq, last)))
          .orderBy(asc(resumableStreamEvents.seq))
          .limit(PAGE);
        for (const { seq, event } of page) {
          if (stopped) return;
          follower.event(seq, event);
          last = seq;
        }
      } while (page.length === PAGE);
      if (row.state !== "upstream_open") return follower.end(row.state === "completed" ? undefined : (row.error ?? row.state));
      await Bun.sleep(followMs);
    }
  };
  run().catch((error) => follower.end(`reading the stream failed: ${(error as Error).message}`));
  return () => {
    stopped = true;
  };
}
