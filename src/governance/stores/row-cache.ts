import { LocalWrites } from "../../db/table-changes";
import { notFound } from "../../http/errors";
import type { ListQuery } from "../schemas";

interface CachedRow {
  id: string;
  name: string;
  createdAt: Date;
}

/** Rows of one table held in memory for the hot path; stores write libSQL first, then here. */
export class RowCache<Row extends CachedRow> {
  private readonly rows = new Map<string, Row>();
  private readonly localWrites = new LocalWrites();

  /** `what` names the entity in not-found messages ("team", "virtual key"). */
  constructor(private readonly what: string) {}

  /**
   * Holds what `read` returns (the whole table, as libSQL has it now) in place of every row. A
   * read that one of this cache's own writes overtook is made again: it may predate the write,
   * and would undo it until the next change check.
   */
  async reload(read: () => Promise<readonly Row[]>): Promise<readonly Row[]> {
    const rows = await this.localWrites.readUnraced(read);
    this.rows.clear();
    for (const row of rows) this.rows.set(row.id, row);
    return rows;
  }

  get(id: string): Row | undefined {
    return this.rows.get(id);
  }

  require(id: string): Row {
    const row = this.rows.get(id);
    if (!row) throw notFound(`${this.what} '${id}' not found`);
    return row;
  }

  set(row: Row): Row {
    this.rows.set(row.id, row);
    this.localWrites.wrote();
    return row;
  }

  delete(id: string): void {
    this.rows.delete(id);
    this.localWrites.wrote();
  }

  get size(): number {
    return this.rows.size;
  }

  /** Oldest first. */
  all(): Row[] {
    return [...this.rows.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.name.localeCompare(b.name));
  }

  /** `search` matches the name case-insensitively; no `limit` means every row after `offset`. */
  page(query: ListQuery) {
    const needle = query.search?.toLowerCase();
    const matching = needle ? this.all().filter((row) => row.name.toLowerCase().includes(needle)) : this.all();
    const offset = query.offset ?? 0;
    const rows = query.limit === undefined ? matching.slice(offset) : matching.slice(offset, offset + query.limit);
    return { rows, count: rows.length, total_count: matching.length, limit: query.limit ?? 0, offset };
  }
}
