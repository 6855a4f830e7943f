import { and, asc, eq, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { governanceVideoCharges, type HeldCharge } from "../../db/schema";
import type { VideoState } from "../../inference/videos/state";
import type { VideoPoll } from "../../db/schema/types";
import type { AppliedLimit } from "./applied-limits";
import type { LimitCounters } from "./limit-counters";
import type { QuotaSlices } from "./quota-slices";

/** A video no read has reported on in this long (Google keeps Veo's for two days) keeps its charges. */
const HELD_FOR_MS = 7 * 86_400_000;

/** How long after its create the gateway reads a video no client has read to its end (most take minutes), and again after each such read. */
export const SELF_READ_AFTER_MS = 30 * 60_000;

/** A video the gateway reads itself: where it is kept, and how it is read. */
export interface DueVideo {
  provider: string;
  videoId: string;
  poll: VideoPoll;
}

/**
 * What budgets were charged for videos still being made, kept in the database until a read of the
 * video (on any node) says how it ended: a failed video's charges are given back, once, to the
 * windows they were taken from while those are still current, and so is the share of the videos
 * Veo's filter took out of a request for several; the videos made keep theirs. On a database
 * several nodes share, the charge is also added to each budget's claimed total at once (not to
 * this node's slice), and a refund takes it from there in the same write that lets the held row
 * go: whichever node reads the failed video, every node's next claim finds the money free again.
 */
export class VideoCharges {
  constructor(
    private readonly db: Database,
    private readonly counters: LimitCounters,
    private readonly clock: () => number,
    private readonly slices?: QuotaSlices,
  ) {}

  /** Holds the charge of `cost` on each budget of `limits` for a video whose create was just answered. */
  async hold(provider: string, video: VideoState, limits: readonly AppliedLimit[], cost: number): Promise<void> {
    const budgets = limits.filter((limit) => limit.kind === "budget");
    if (budgets.length === 0 || !(cost > 0)) return;
    const quotaWindows = await this.chargeQuota(budgets, cost);
    const charges: HeldCharge[] = budgets.map((limit) => {
      const { windowStart, resetsAt } = this.counters.read(limit);
      const quotaWindowStart = quotaWindows?.get(limit.counterId);
      return { counterId: limit.counterId, windowStart, windowMs: resetsAt - windowStart, amount: cost, ...(quotaWindowStart !== undefined && { quotaWindowStart }) };
    });
    const now = this.clock();
    await this.db.batch([
      this.db.delete(governanceVideoCharges).where(lt(governanceVideoCharges.createdAt, new Date(now - HELD_FOR_MS))),
      this.db.insert(governanceVideoCharges).values({ provider, videoId: video.id, charges, createdAt: new Date(now), poll: video.poll ?? null }).onConflictDoNothing(),
    ]);
  }

  /**
   * Up to `limit` videos that no read has ended SELF_READ_AFTER_MS after their create (or after the
   * gateway's last read of them), marked read now: another node, or the next sweep, skips them for
   * as long again. Their reads end the charges like any client's (`ended`).
   */
  async due(limit: number): Promise<DueVideo[]> {
    const now = this.clock();
    const before = new Date(now - SELF_READ_AFTER_MS);
    const table = governanceVideoCharges;
    // Checked again by the claim: a node that claimed the row since the select has set it.
    const notReadSince = or(isNull(table.checkedAt), lte(table.checkedAt, before));
    const waiting = this.db
      .select({ provider: table.provider, videoId: table.videoId })
      .from(table)
      .where(and(isNotNull(table.poll), lte(table.createdAt, before), notReadSince))
      .orderBy(asc(table.createdAt))
      .limit(limit);
    const claimed = await this.db
      .update(table)
      .set({ checkedAt: new Date(now) })
      .where(and(sql`(${table.provider}, ${table.videoId}) IN ${waiting}`, notReadSince))
      .returning({ provider: table.provider, videoId: table.videoId, poll: table.poll });
    return claimed.flatMap(({ provider, videoId, poll }) => (poll ? [{ provider, videoId, poll }] : []));
  }

  /**
   * A read found the video made or failed: its held charges are let go, and the unmade share of
   * them given back. Deleting the row is what claims it, so of several reads (on several nodes) one gives back.
   */
  async ended(provider: string, video: VideoState): Promise<void> {
    const share = video.unmadeShare;
    const letGo = this.letGo(provider, video.id);
    const toQuota = share > 0 && this.slices?.giveBackHeld(sql`(SELECT ${governanceVideoCharges.charges} FROM ${governanceVideoCharges} WHERE ${this.heldRow(provider, video.id)})`, share);
    const [held] = toQuota ? (await this.db.batch([toQuota, letGo]))[1] : await letGo;
    if (!held || !(share > 0)) return;
    for (const charge of held.charges) this.counters.takeBack(charge.counterId, charge.windowStart, charge.windowMs, charge.amount * share);
  }

  /** A video its provider no longer has (deleted, or expired before a read saw its end): its charges stay as they are. */
  async gone(provider: string, videoId: string): Promise<void> {
    await this.letGo(provider, videoId);
  }

  /**
   * On a shared database, the charge on each budget's claimed total: should that write fail, this
   * node's slice carries the cost instead (sent with its next claim), with no refund to come.
   */
  private async chargeQuota(budgets: readonly AppliedLimit[], cost: number): Promise<Map<string, number> | undefined> {
    if (!this.slices) return undefined;
    try {
      return await this.slices.chargeOutright(budgets, cost);
    } catch (error) {
      this.slices.spend(budgets, { cost, tokens: 0 });
      throw error;
    }
  }

  private heldRow(provider: string, videoId: string) {
    return and(eq(governanceVideoCharges.provider, provider), eq(governanceVideoCharges.videoId, videoId));
  }

  private letGo(provider: string, videoId: string) {
    return this.db.delete(governanceVideoCharges).where(this.heldRow(provider, videoId)).returning({ charges: governanceVideoCharges.charges });
  }
}
