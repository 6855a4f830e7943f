import { and, asc, eq, gt, isNull, lte, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { inWriteTurn } from "../db/write-turns";
import { type StoredResponseRow, storedResponses } from "../db/schema";
import { continuationOf, type ResponseLink, wholeInputOf } from "./chain";

/** How long a response is kept unless configured: OpenAI keeps its own for 30 days. */
export const DEFAULT_RETENTION_DAYS = 30;

export interface NewStoredResponse extends Pick<StoredResponseRow, "id" | "owner" | "response"> {
  /** The stored response the request continued, if it did. */
  previousId: string | null;
  /** The input items the request added. */
  ownInput: unknown[];
  /** Every input item the model answered, kept instead when the continued response is gone by the time of the write. */
  wholeInput: unknown[];
}

/** A stored response with every input item its model answered, earlier turns included. */
export type StoredResponse = Pick<StoredResponseRow, "id" | "response"> & { input: unknown[] };

/** Expired rows each write removes: a first write after a long quiet spell stays short. */
const SWEPT_PER_WRITE = 100;

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
type Reader = Database | Transaction;

/**
 * Stored responses; a read sees only live rows of its owner, every write sweeps some expired ones.
 * A row keeps only what its own request added and links to the response it continued; a response
 * that goes (deleted or expired) first writes its conversation into the responses continuing it.
 */
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

  async get(id: string, owner: string | undefined): Promise<StoredResponse | undefined> {
    const found = await this.db.select({ id: storedResponses.id }).from(storedResponses).where(this.readable(id, owner)).get();
    if (!found) return undefined;
    const chain = await linksUpTo(this.db, id);
    return { id, response: chain.at(-1)!.response, input: wholeInputOf(chain) };
  }

  async put(entry: NewStoredResponse): Promise<void> {
    const now = this.clock();
    const { previousId, ownInput, wholeInput, ...row } = entry;
    await this.inTransaction(async (tx) => {
      await this.sweep(tx, now);
      const linked = previousId !== null && (await tx.select({ id: storedResponses.id }).from(storedResponses).where(eq(storedResponses.id, previousId)).get()) !== undefined;
      await tx.insert(storedResponses).values({
        ...row,
        previousId: linked ? previousId : null,
        input: linked ? ownInput : wholeInput,
        createdAt: new Date(now),
        expiresAt: new Date(now + this.retentionDays() * 86_400_000),
      });
    });
  }

  /** Whether a response was deleted. */
  async delete(id: string, owner: string | undefined): Promise<boolean> {
    return this.inTransaction(async (tx) => {
      const found = await tx.select({ id: storedResponses.id }).from(storedResponses).where(this.readable(id, owner)).get();
      if (!found) return false;
      await this.remove(tx, id);
      return true;
    });
  }

  /** A transaction holds the file's lock between its statements: other writes that may meet it wait their turn (see write-turns.ts). */
  private inTransaction<T>(run: (tx: Transaction) => Promise<T>): Promise<T> {
    return inWriteTurn(this.db, () => this.db.transaction(run));
  }

  private async sweep(tx: Transaction, now: number): Promise<void> {
    const expired = await tx
      .select({ id: storedResponses.id })
      .from(storedResponses)
      .where(lte(storedResponses.expiresAt, new Date(now)))
      .orderBy(asc(storedResponses.createdAt))
      .limit(SWEPT_PER_WRITE);
    for (const { id } of expired) await this.remove(tx, id);
  }

  /** Removes a response after writing its conversation into those continuing it. */
  private async remove(tx: Transaction, id: string): Promise<void> {
    const continuing = await tx.select({ id: storedResponses.id, input: storedResponses.input }).from(storedResponses).where(eq(storedResponses.previousId, id));
    if (continuing.length > 0) {
      const before = continuationOf(await linksUpTo(tx, id));
      for (const child of continuing) {
        await tx.update(storedResponses).set({ previousId: null, input: [...before, ...child.input] }).where(eq(storedResponses.id, child.id));
      }
    }
    await tx.delete(storedResponses).where(eq(storedResponses.id, id));
  }
}

/**
 * The response and those it continues, oldest first. drizzle has no recursive CTE, so the walk
 * up the `previous_id` links is written in SQL: one query however long the conversation.
 */
async function linksUpTo(db: Reader, id: string): Promise<ResponseLink[]> {
  const rows = await db.all<{ input: string; response: string }>(sql`
    WITH RECURSIVE chain(id, previous_id, input, response, depth) AS (
      SELECT id, previous_id, input, response, 0 FROM stored_responses WHERE id = ${id}
      UNION ALL
      SELECT earlier.id, earlier.previous_id, earlier.input, earlier.response, chain.depth + 1
      FROM stored_responses AS earlier JOIN chain ON earlier.id = chain.previous_id
    )
    SELECT input, response FROM chain ORDER BY depth DESC`);
  return rows.map((row) => ({ input: JSON.parse(row.input) as unknown[], response: JSON.parse(row.response) as Record<string, unknown> }));
}
