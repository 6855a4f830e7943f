import { asc, inArray, ne, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { resumableStreamEvents, resumableStreams } from "../db/schema";

/** Streams looked at per round of eviction. */
const ROUND = 50;

/**
 * While the events of every stream kept pass `maxTotalBytes`, removes the oldest ended streams
 * (their events and rows): a reader of one then finds it gone, as after its retention. Streams
 * still open are left to their own bound.
 */
export async function evictOverTotal(db: Database, maxTotalBytes: number): Promise<number> {
  let evicted = 0;
  for (;;) {
    const { total } = (await db.select({ total: sql<number>`coalesce(sum(${resumableStreams.bytes}), 0)` }).from(resumableStreams).get())!;
    if (total <= maxTotalBytes) return evicted;
    const oldest = await db
      .select({ id: resumableStreams.id, bytes: resumableStreams.bytes })
      .from(resumableStreams)
      .where(ne(resumableStreams.state, "upstream_open"))
      .orderBy(asc(resumableStreams.createdAt))
      .limit(ROUND);
    if (oldest.length === 0) return evicted;
    let over = total - maxTotalBytes;
    const ids: string[] = [];
    for (const { id, bytes } of oldest) {
      if (over <= 0) break;
      ids.push(id);
      over -= bytes;
    }
    await db.batch([db.delete(resumableStreamEvents).where(inArray(resumableStreamEvents.streamId, ids)), db.delete(resumableStreams).where(inArray(resumableStreams.id, ids))]);
    evicted += ids.length;
  }
}
