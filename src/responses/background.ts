import { eq, lt } from "drizzle-orm";
import type { Database } from "../db/client";
import { backgroundResponses } from "../db/schema";

/** A background response nobody read back finished for this long is forgotten, unbilled: its provider no longer keeps it either. */
const FORGOTTEN_AFTER_MS = 30 * 86_400_000;
/** Billed ids this node remembers, so that a read still in flight when its twin billed does not bill again. */
const BILLED_REMEMBERED = 10_000;

export interface PendingResponse {
  provider: string;
  model: string;
}

/**
 * The background responses whose usage is still to be billed. A create answered `queued` is
 * remembered; the first read that brings its usage (the finished response, or a cancelled one)
 * bills it, and it is forgotten. Two reads on this node never bill it twice.
 */
export class BackgroundResponseLedger {
  private readonly billed = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly clock: () => number,
  ) {}

  async remember(id: string, { provider, model }: PendingResponse): Promise<void> {
    const now = this.clock();
    await this.db.batch([
      this.db.delete(backgroundResponses).where(lt(backgroundResponses.createdAt, new Date(now - FORGOTTEN_AFTER_MS))),
      this.db.insert(backgroundResponses).values({ id, provider, model, createdAt: new Date(now) }).onConflictDoNothing(),
    ]);
  }

  pending(id: string): Promise<PendingResponse | undefined> {
    return this.db.select({ provider: backgroundResponses.provider, model: backgroundResponses.model }).from(backgroundResponses).where(eq(backgroundResponses.id, id)).get();
  }

  /**
   * Whether this read bills the response's usage: once, when the answer is the write that forgets
   * it (for the caller to await before the gateway stops); undefined for every later read.
   */
  claim(id: string): Promise<void> | undefined {
    if (this.billed.has(id)) return undefined;
    this.billed.add(id);
    if (this.billed.size > BILLED_REMEMBERED) this.billed.delete(this.billed.values().next().value!);
    return this.db
      .delete(backgroundResponses)
      .where(eq(backgroundResponses.id, id))
      .then(() => undefined);
  }
}
