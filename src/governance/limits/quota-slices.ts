import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { FailureStreak } from "../../db/failure-streak";
import { governanceQuota } from "../../db/schema";
import { databaseUnavailable } from "../../db/unavailable";
import type { AppliedLimit } from "./applied-limits";
import { addPeriod, calendarStart } from "./periods";

/** What this node claimed of one limit in one window, and what it has served of it. */
export interface Slice {
  windowStart: number;
  granted: number;
  used: number;
  /** What calls under way hold of a budget's slice: counted against its room, never reported as spent. */
  held: number;
  lastUsedAt: number;
}

export interface QuotaSlicesOptions {
  /** The share of a limit one claim asks for (default a tenth): larger claims are rarer, smaller ones leave less unused on a node. */
  sliceShare?: number;
  /** A slice untouched this long gives back what it did not use (default 2 s). */
  idleReturnMs?: number;
}

/** A call's estimated cost taken from this node's budget slices at admission, given back (`release`) when it settles. */
export interface SliceHold {
  amount: number;
  taken: Array<[counterId: string, slice: Slice]>;
}

/** The limit a claim refused: nothing is left of it in its window. */
export class QuotaExhausted extends Error {
  constructor(
    readonly limit: AppliedLimit,
    readonly resetsAt: number,
  ) {
    super(`the ${limit.kind} limit ${limit.counterId} is used up`);
  }
}

/**
 * Budgets and rate limits held across every node of one database, exactly: a node serves
 * requests from a slice of each limit it claimed from the database in one atomic write (the
 * write adds to what all nodes claimed, never past the limit, and reads back what it granted),
 * claims another slice when its own runs out, and gives back what it did not use. The nodes
 * together never pass a limit; they leave unused at most the slices outstanding. Charges known
 * only after the reply (cost, tokens) that pass a slice are added to the claimed total with the
 * next claim or return. While the database is out of reach, `admit` answers `undefined` and the
 * caller falls back to this node's own counters.
 */
export class QuotaSlices {
  private readonly slices = new Map<string, Slice>();
  private readonly claiming = new Map<string, Promise<void>>();
  private readonly sliceShare: number;
  private readonly idleReturnMs: number;
  private readonly failures = new FailureStreak("governance: returning unused quota");
  private timer?: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Database,
    private readonly clock: () => number,
    options: QuotaSlicesOptions = {},
  ) {
    this.sliceShare = options.sliceShare ?? 0.1;
    this.idleReturnMs = options.idleReturnMs ?? 2_000;
  }

  /** Returns idle slices every `intervalMs`; the timer never keeps the process alive. */
  startReturning(intervalMs: number): void {
    this.timer = setInterval(() => void this.settleIdle(false).then(() => this.failures.succeeded(), (error) => this.failures.failed(error)), intervalMs);
    this.timer.unref?.();
  }

  /**
   * Takes a request's share of every limit: one request of a request limit, and for budgets and
   * token limits, that some of the slice is left. Synchronous (undefined) when every slice has
   * room; otherwise a promise that claims more and rejects with QuotaExhausted when a limit is
   * used up. A database out of reach resolves to false: the caller decides by its own counters.
   */
  admit(limits: readonly AppliedLimit[], spends: boolean, hold?: SliceHold): Promise<boolean> | undefined {
    const held = limits.filter((limit) => spends || limit.kind === "requests");
    if (held.every((limit) => this.hasRoom(limit))) {
      for (const limit of held) this.take(limit, hold);
      return undefined;
    }
    return this.admitClaiming(held, hold);
  }

  /** Gives a call's hold back to the slices it was taken from, those still current; the real cost is spent instead. */
  release(hold: SliceHold | undefined): void {
    for (const [counterId, slice] of hold?.taken.splice(0) ?? []) {
      if (this.slices.get(counterId) === slice) slice.held = Math.max(0, slice.held - hold!.amount);
    }
  }

  /** After the reply: the cost on budgets, the tokens on token limits, from this node's slices. */
  spend(limits: readonly AppliedLimit[], usage: { cost: number; tokens: number }): void {
    for (const limit of limits) {
      const amount = limit.kind === "budget" ? usage.cost : limit.kind === "tokens" ? usage.tokens : 0;
      if (!(amount > 0)) continue;
      const slice = this.current(limit);
      slice.used += amount;
      slice.lastUsedAt = this.clock();
    }
  }

  /** Gives back every unused slice and records every overrun. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.settleIdle(true);
  }

  private async admitClaiming(held: readonly AppliedLimit[], hold: SliceHold | undefined): Promise<boolean> {
    const taken: AppliedLimit[] = [];
    try {
      for (const limit of held) {
        while (!this.hasRoom(limit)) {
          const granted = await this.claim(limit);
          if (granted <= 0 && !this.hasRoom(limit)) throw new QuotaExhausted(limit, addPeriod(this.current(limit).windowStart, limit.period));
        }
        this.take(limit, hold);
        taken.push(limit);
      }
      return true;
    } catch (error) {
      for (const limit of taken) if (limit.kind === "requests") this.current(limit).used -= 1;
      this.release(hold);
      if (databaseUnavailable(error)) return false;
      throw error;
    }
  }

  private hasRoom(limit: AppliedLimit): boolean {
    const slice = this.current(limit);
    return limit.kind === "requests" ? slice.used + 1 <= slice.granted : slice.used + slice.held < slice.granted;
  }

  private take(limit: AppliedLimit, hold: SliceHold | undefined): void {
    const slice = this.current(limit);
    if (limit.kind === "requests") slice.used += 1;
    else if (limit.kind === "budget" && hold && hold.amount > 0) {
      slice.held += hold.amount;
      hold.taken.push([limit.counterId, slice]);
    }
    slice.lastUsedAt = this.clock();
  }

  /** Claims one slice of `limit`; concurrent requests short of the same limit wait for one claim. */
  private async claim(limit: AppliedLimit): Promise<number> {
    const before = this.current(limit).granted;
    const running = this.claiming.get(limit.counterId);
    if (running) {
      await running;
      return this.current(limit).granted - before;
    }
    const claim = this.claimOnce(limit).finally(() => this.claiming.delete(limit.counterId));
    this.claiming.set(limit.counterId, claim);
    await claim;
    return this.current(limit).granted - before;
  }

  private async claimOnce(limit: AppliedLimit): Promise<void> {
    const now = this.clock();
    const slice = this.current(limit);
    const overrun = Math.max(0, slice.used - slice.granted);
    const want = Math.max(limit.kind === "requests" ? 1 : Number.MIN_VALUE, limit.max * this.sliceShare);
    const { start, current } = this.windowAt(limit, now);
    const q = governanceQuota;
    const grantFromRow = sql`min(${want}, max(0, ${limit.max} - ${q.claimed} - ${overrun}))`;
    const fresh = Math.min(want, Math.max(0, limit.max - overrun));
    const [row] = await this.db
      .insert(q)
      .values({ counterId: limit.counterId, claimed: fresh + overrun, lastGrant: fresh, windowStart: new Date(start), updatedAt: new Date(now) })
      .onConflictDoUpdate({
        target: q.counterId,
        set: {
          claimed: sql`CASE WHEN ${current} THEN ${q.claimed} + ${overrun} + ${grantFromRow} ELSE ${fresh + overrun} END`,
          lastGrant: sql`CASE WHEN ${current} THEN ${grantFromRow} ELSE ${fresh} END`,
          windowStart: sql`CASE WHEN ${current} THEN ${q.windowStart} ELSE ${start} END`,
          updatedAt: new Date(now),
        },
      })
      .returning({ lastGrant: q.lastGrant, windowStart: q.windowStart });
    if (!row) return;
    const windowStart = row.windowStart.getTime();
    const mine = this.current(limit);
    if (mine.windowStart === windowStart) {
      // The overrun is on the primary now: the slice counts it as granted.
      mine.granted += row.lastGrant + overrun;
    } else {
      // Another node began the window: this node's slice starts there.
      this.slices.set(limit.counterId, { windowStart, granted: row.lastGrant, used: 0, held: 0, lastUsedAt: now });
    }
  }

  /**
   * Adds `amount` to each limit's claimed total at once, outside every slice: a video's charge,
   * held until a read says whether the video was made (video-charges.ts). Resolves with the window
   * each was added to, keyed by counter, which a refund (`giveBackHeld`) gives back to.
   */
  async chargeOutright(limits: readonly AppliedLimit[], amount: number): Promise<Map<string, number>> {
    const now = this.clock();
    const q = governanceQuota;
    const upserts = limits.map((limit) => {
      const { start, current } = this.windowAt(limit, now);
      return this.db
        .insert(q)
        .values({ counterId: limit.counterId, claimed: amount, lastGrant: 0, windowStart: new Date(start), updatedAt: new Date(now) })
        .onConflictDoUpdate({
          target: q.counterId,
          set: {
            claimed: sql`CASE WHEN ${current} THEN ${q.claimed} + ${amount} ELSE ${amount} END`,
            windowStart: sql`CASE WHEN ${current} THEN ${q.windowStart} ELSE ${start} END`,
            updatedAt: new Date(now),
          },
        })
        .returning({ counterId: q.counterId, windowStart: q.windowStart });
    });
    const [first, ...rest] = upserts;
    if (!first) return new Map();
    const results = await this.db.batch([first, ...rest]);
    return new Map(results.flat().map((row) => [row.counterId, row.windowStart.getTime()]));
  }

  /**
   * The statement that gives back `share` of held charges to the claimed totals of the windows
   * they were added to, where those rows are still in them. `charges` is a scalar query for the
   * charges' JSON (HeldCharge[]): none (a row another node let go) gives back nothing, so a refund
   * batched with the deletion of its row happens once.
   */
  giveBackHeld(charges: SQL, share: number) {
    const q = governanceQuota;
    const ofThisRow = sql`json_extract(held.value, '$.counterId') = ${q.counterId} AND json_extract(held.value, '$.quotaWindowStart') = ${q.windowStart}`;
    const heldHere = sql`(SELECT coalesce(sum(json_extract(held.value, '$.amount')), 0) FROM json_each(${charges}) AS held WHERE ${ofThisRow})`;
    return this.db
      .update(q)
      .set({ claimed: sql`max(0, ${q.claimed} - ${share} * ${heldHere})`, updatedAt: new Date(this.clock()) })
      .where(sql`EXISTS (SELECT 1 FROM json_each(${charges}) AS held WHERE ${ofThisRow})`);
  }

  /** The limit's window as of `now`, and the condition under which the quota row is still in it. */
  private windowAt(limit: AppliedLimit, now: number) {
    const start = limit.calendarAligned ? calendarStart(now, limit.period) : now;
    const lengthMs = addPeriod(start, limit.period) - start;
    const q = governanceQuota;
    // The row's window is still the current one: for calendar windows when it began at this
    // window's boundary (or later, on a clock ahead of ours), for rolling ones while it lasts.
    const current = limit.calendarAligned ? sql`${q.windowStart} >= ${start}` : sql`${now} < ${q.windowStart} + ${lengthMs}`;
    return { start, current };
  }

  /** Gives back what idle slices (or, on close, all) did not use, and records what they overran. */
  private async settleIdle(all: boolean): Promise<void> {
    const now = this.clock();
    for (const [counterId, slice] of this.slices) {
      if (!all && now - slice.lastUsedAt < this.idleReturnMs) continue;
      // What calls still under way hold stays claimed.
      const unused = slice.granted - slice.used - slice.held;
      if (unused === 0 || this.claiming.has(counterId)) continue;
      await this.db
        .update(governanceQuota)
        .set({ claimed: sql`max(0, ${governanceQuota.claimed} - ${unused})`, updatedAt: new Date(now) })
        .where(and(eq(governanceQuota.counterId, counterId), eq(governanceQuota.windowStart, new Date(slice.windowStart))));
      slice.granted = slice.used + slice.held;
    }
  }

  /** This node's slice of the limit's current window; an ended window's slice gives way to an empty one. */
  private current(limit: AppliedLimit): Slice {
    const now = this.clock();
    const slice = this.slices.get(limit.counterId);
    if (slice && now < addPeriod(slice.windowStart, limit.period)) return slice;
    // A rolling window's start is set by the claim that finds it: the first node's.
    const fresh = { windowStart: limit.calendarAligned ? calendarStart(now, limit.period) : now, granted: 0, used: 0, held: 0, lastUsedAt: now };
    this.slices.set(limit.counterId, fresh);
    return fresh;
  }
}
