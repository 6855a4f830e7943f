import { and, desc, eq, getTableColumns, gt, isNotNull, lte, or, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { type ResponseCacheRow, responseCache } from "../db/schema";
import type { RequestKeys } from "./request-key";

export interface NewCacheEntry {
  id: string;
  cacheKey: string;
  keys: RequestKeys;
  provider: string;
  model: string;
  stream: boolean;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  ttlSeconds: number;
  embedding?: { space: string; vector: readonly number[] };
}

export interface SimilarEntry {
  entry: ResponseCacheRow;
  similarity: number;
}

/** Response cache entries; every lookup ignores expired rows, every write sweeps them. */
export class CacheStore {
  constructor(private readonly db: Database) {}

  findExact(cacheKey: string, requestHash: string, now: number): Promise<ResponseCacheRow | undefined> {
    return this.db
      .select()
      .from(responseCache)
      .where(and(eq(responseCache.cacheKey, cacheKey), eq(responseCache.requestHash, requestHash), gt(responseCache.expiresAt, new Date(now))))
      .orderBy(desc(responseCache.createdAt))
      .get();
  }

  /**
   * The closest live entry of the same parameters and embedding space, when its cosine
   * similarity reaches `threshold`. libSQL's vector functions have no drizzle builder, hence
   * the SQL fragments; rows are compared by brute force within (cache key, params hash).
   */
  async findSimilar(cacheKey: string, paramsHash: string, space: string, vector: readonly number[], threshold: number, now: number): Promise<SimilarEntry | undefined> {
    const distance = sql<number>`vector_distance_cos(${responseCache.embedding}, vector32(${JSON.stringify(vector)}))`;
    const closest = await this.db
      .select({ ...getTableColumns(responseCache), distance })
      .from(responseCache)
      .where(
        and(
          eq(responseCache.cacheKey, cacheKey),
          eq(responseCache.paramsHash, paramsHash),
          eq(responseCache.embeddingModel, space),
          isNotNull(responseCache.embedding),
          gt(responseCache.expiresAt, new Date(now)),
        ),
      )
      .orderBy(distance)
      .limit(1)
      .get();
    if (!closest) return undefined;
    const { distance: found, ...entry } = closest;
    const similarity = 1 - found;
    return similarity >= threshold ? { entry, similarity } : undefined;
  }

  /** Replaces any entry of the same request, and drops expired ones on the way. */
  async put(entry: NewCacheEntry, now: number): Promise<void> {
    const { keys, embedding, ttlSeconds, body, ...columns } = entry;
    const sameRequest = and(eq(responseCache.cacheKey, entry.cacheKey), eq(responseCache.requestHash, keys.requestHash));
    await this.db.batch([
      this.db.delete(responseCache).where(or(sameRequest, lte(responseCache.expiresAt, new Date(now)))),
      this.db.insert(responseCache).values({
        ...columns,
        requestHash: keys.requestHash,
        paramsHash: keys.paramsHash,
        body: Buffer.from(body),
        embedding: embedding ? sql`vector32(${JSON.stringify(embedding.vector)})` : null,
        embeddingModel: embedding?.space ?? null,
        createdAt: new Date(now),
        expiresAt: new Date(now + ttlSeconds * 1000),
      }),
    ]);
  }

  async deleteById(id: string): Promise<boolean> {
    const result = await this.db.delete(responseCache).where(eq(responseCache.id, id));
    return result.rowsAffected > 0;
  }

  async deleteByKey(cacheKey: string): Promise<number> {
    const result = await this.db.delete(responseCache).where(eq(responseCache.cacheKey, cacheKey));
    return result.rowsAffected;
  }
}
