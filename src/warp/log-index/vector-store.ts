import { and, count, desc, eq, getTableColumns, inArray, isNotNull, lt, lte, ne, notExists, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { type NewRequestLogRow, type RequestLogRow, requestLogs } from "../../db/schema/logs";
import { warpLogVectors } from "../../db/schema/warp";
import { REQUEST_TYPE } from "../../upstream/operations";
import { WARP_METADATA_KEY } from "../pipeline";
import type { EmbeddingSpace } from "./embedding-space";

/** Logs of conversations are indexed; embeddings, token counts and the like say nothing searchable. */
const INDEXED_OBJECTS = [REQUEST_TYPE.chat, REQUEST_TYPE.text_completion, REQUEST_TYPE.responses];

export interface IndexedVector {
  logId: string;
  vector: readonly number[];
}

export interface UnindexedLog {
  seq: number;
  id: string;
  requestContent: string | null;
  responseContent: string | null;
}

export interface SimilarLog {
  log: RequestLogRow;
  similarity: number;
}

/**
 * Whether a log just written is worth indexing: a conversation with logged content that the
 * agent did not make itself (its own chats and embeddings would otherwise feed back into search).
 */
export function isIndexable(row: Pick<NewRequestLogRow, "object" | "requestContent" | "responseContent" | "metadata">): boolean {
  return INDEXED_OBJECTS.includes(row.object) && Boolean(row.requestContent || row.responseContent) && !Object.hasOwn(row.metadata ?? {}, WARP_METADATA_KEY);
}

// libSQL's vector functions have no drizzle builder, hence the SQL fragments below.
const asVector = (vector: readonly number[]) => sql`vector32(${JSON.stringify(vector)})`;

/**
 * Log embeddings in libSQL vector blobs, compared with `vector_distance_cos` among the vectors
 * of one (namespace, space). The search is exact: the dimension is configuration, and libSQL's
 * approximate vector index needs a column of one fixed dimension declared in the schema.
 */
export class LogVectorStore {
  constructor(private readonly db: Database) {}

  /** Whether the database answers vector functions over the vector table. */
  async connected(): Promise<boolean> {
    try {
      await this.db.select({ probe: sql`vector_extract(${asVector([1])})` }).from(warpLogVectors).limit(1);
      return true;
    } catch {
      return false;
    }
  }

  async upsert(space: EmbeddingSpace, vectors: readonly IndexedVector[], now: Date): Promise<void> {
    if (vectors.length === 0) return;
    const rows = vectors.map(({ logId, vector }) => ({ namespace: space.namespace, logId, space: space.id, embedding: asVector(vector), indexedAt: now }));
    await this.db
      .insert(warpLogVectors)
      .values(rows)
      .onConflictDoUpdate({ target: [warpLogVectors.namespace, warpLogVectors.logId], set: { space: sql`excluded.space`, embedding: sql`excluded.embedding`, indexedAt: sql`excluded.indexed_at` } });
  }

  /** At most `limit` live logs whose cosine similarity to `vector` is at least `threshold`, closest first. */
  async search(space: EmbeddingSpace, vector: readonly number[], limit: number, threshold: number): Promise<SimilarLog[]> {
    const distance = sql<number>`vector_distance_cos(${warpLogVectors.embedding}, ${asVector(vector)})`.mapWith(Number);
    const rows = await this.db
      .select({ log: getTableColumns(requestLogs), distance })
      .from(warpLogVectors)
      .innerJoin(requestLogs, eq(requestLogs.id, warpLogVectors.logId))
      .where(and(this.inSpace(space), lte(distance, 1 - threshold)))
      .orderBy(distance)
      .limit(limit);
    return rows.map(({ log, distance: found }) => ({ log, similarity: 1 - found }));
  }

  countIndexed(space: EmbeddingSpace): Promise<number> {
    return this.db.$count(warpLogVectors, this.inSpace(space));
  }

  async countUnindexed(space: EmbeddingSpace): Promise<number> {
    const [row] = await this.db.select({ total: count() }).from(requestLogs).where(this.unindexed(space));
    return row?.total ?? 0;
  }

  /** The next logs to index, newest first, strictly older than `beforeSeq` when given. */
  unindexedPage(space: EmbeddingSpace, beforeSeq: number | undefined, limit: number): Promise<UnindexedLog[]> {
    return this.db
      .select({ seq: requestLogs.seq, id: requestLogs.id, requestContent: requestLogs.requestContent, responseContent: requestLogs.responseContent })
      .from(requestLogs)
      .where(and(this.unindexed(space), beforeSeq === undefined ? undefined : lt(requestLogs.seq, beforeSeq)))
      .orderBy(desc(requestLogs.seq))
      .limit(limit);
  }

  /** Vectors of the namespace made by another model or dimension can never match again. */
  async dropOtherSpaces(space: EmbeddingSpace): Promise<void> {
    await this.db.delete(warpLogVectors).where(and(eq(warpLogVectors.namespace, space.namespace), ne(warpLogVectors.space, space.id)));
  }

  /** Vectors whose log was deleted (by the API or retention). */
  async dropOrphans(): Promise<number> {
    const result = await this.db.delete(warpLogVectors).where(notExists(this.db.select({ id: requestLogs.id }).from(requestLogs).where(eq(requestLogs.id, warpLogVectors.logId))));
    return result.rowsAffected;
  }

  private inSpace(space: EmbeddingSpace): SQL | undefined {
    return and(eq(warpLogVectors.namespace, space.namespace), eq(warpLogVectors.space, space.id));
  }

  private unindexed(space: EmbeddingSpace): SQL | undefined {
    const vectorOfLog = this.db
      .select({ logId: warpLogVectors.logId })
      .from(warpLogVectors)
      .where(and(eq(warpLogVectors.namespace, space.namespace), eq(warpLogVectors.logId, requestLogs.id), eq(warpLogVectors.space, space.id)));
    return and(
      inArray(requestLogs.object, INDEXED_OBJECTS),
      or(isNotNull(requestLogs.requestContent), isNotNull(requestLogs.responseContent)),
      sql`NOT EXISTS (SELECT 1 FROM json_each(${requestLogs.metadata}) WHERE key = ${WARP_METADATA_KEY})`,
      notExists(vectorOfLog),
    );
  }
}
