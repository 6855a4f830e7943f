import { and, eq, gt, inArray, isNull, lte } from "drizzle-orm";
import type { Database } from "../db/client";
import { type StoredResponseRow, storedResponses } from "../db/schema";

/** How long a response is kept unless configured: OpenAI keeps its own for 30 days. */
export const DEFAULT_RETENTION_DAYS = 30;

export type NewStoredResponse = Pick<StoredResponseRow, "id" | "owner" | "input" | "response">;

/** Expired rows each write removes: a first write after a long quiet spell stays short. */
const SWEPT_PER_WRITE = 100;

/** Stored responses; a read sees only live rows of its owner, every write sweeps some expired ones. */
export class StoredResponseStore {
  constructor(
    private readonly db: Database,
    private readonly clock: () => number,
    private readonly retentionDays: () => number,
  ) {}

  /** A caller without a virtual key reads only responses created without one. */
  private readable(id: string, owner: string | undefined) {
    const ownedBy = owner ? eq(storedResponses.owner, owner) : isNull(storedResponses.owner);
    return and(eq(storedResponses.id, id), gt(storedResponses.expiresAt, new Date(this.clock())), ownedBy);
  }

  get(id: string, owner: string | undefined): Promise<StoredResponseRow | undefined> {
    return this.db.select().from(storedResponses).where(this.readable(id, owner)).get();
  }

  async put(entry: NewStoredResponse): Promise<void> {
    const now = this.clock();
    await this.db.batch([
      this.db.delete(storedResponses).where(
        inArray(
          storedResponses.id,
          this.db.select({ id: storedResponses.id }).from(storedResponses).where(lte(storedResponses.expiresAt, new Date(now))).limit(SWEPT_PER_WRITE),
        ),
      ),
      this.db.insert(storedResponses).values({ ...entry, createdAt: new Date(now), expiresAt: new Date(now + this.retentionDays() * 86_400_000) }),
    ]);
  }

  /** Whether a response was deleted. */
  async delete(id: string, owner: string | undefined): Promise<boolean> {
    const deleted = await this.db.delete(storedResponses).where(this.readable(id, owner)).returning({ id: storedResponses.id });
    return deleted.length > 0;
  }
}
