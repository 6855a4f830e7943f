import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../../db/client";
import { governanceVideoCharges, type HeldCharge } from "../../db/schema";
import type { VideoState } from "../../inference/video-state";
import type { AppliedLimit } from "./applied-limits";
import type { UsageCounters } from "./usage-counters";

/** A video no read has reported on in this long (Google keeps Veo's for two days) keeps its charges. */
const HELD_FOR_MS = 7 * 86_400_000;

/**
 * What budgets were charged for videos still being made, kept in the database until a read of the
 * video (on any node) says how it ended: a failed video's charges are given back, once, to the
 * windows they were taken from while those are still current, and so is the share of the videos
 * Veo's filter took out of a request for several; the videos made keep theirs.
 */
export class VideoCharges {
  constructor(
    private readonly db: Database,
    private readonly counters: UsageCounters,
    private readonly clock: () => number,
  ) {}

  /** Holds the charge of `cost` on each budget of `limits` for a video whose create was just answered. */
  async hold(provider: string, videoId: string, limits: readonly AppliedLimit[], cost: number): Promise<void> {
    const charges: HeldCharge[] = limits
      .filter((limit) => limit.kind === "budget")
      .map((limit) => {
        const { windowStart, resetsAt } = this.counters.read(limit);
        return { counterId: limit.counterId, windowStart, windowMs: resetsAt - windowStart, amount: cost };
      });
    if (charges.length === 0 || !(cost > 0)) return;
    const now = this.clock();
    await this.db.batch([
      this.db.delete(governanceVideoCharges).where(lt(governanceVideoCharges.createdAt, new Date(now - HELD_FOR_MS))),
      this.db.insert(governanceVideoCharges).values({ provider, videoId, charges, createdAt: new Date(now) }).onConflictDoNothing(),
    ]);
  }

  /**
   * A read found the video made or failed: its held charges are let go, and the unmade share of
   * them given back. Deleting the row is what claims it, so of several reads (on several nodes) one gives back.
   */
  async ended(provider: string, video: VideoState): Promise<void> {
    const [held] = await this.db
      .delete(governanceVideoCharges)
      .where(and(eq(governanceVideoCharges.provider, provider), eq(governanceVideoCharges.videoId, video.id)))
      .returning({ charges: governanceVideoCharges.charges });
    if (!held || !(video.unmadeShare > 0)) return;
    for (const charge of held.charges) this.counters.takeBack(charge.counterId, charge.windowStart, charge.windowMs, charge.amount * video.unmadeShare);
  }
}
