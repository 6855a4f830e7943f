import { type SQL, sql } from "drizzle-orm";
import { requestLogs } from "../db/schema/logs";

// Raw SQL, because drizzle has no FTS5 builder. `request_logs_fts` (migration
// 0001_logs_full_text.sql) is a contentless FTS5 index keyed by request_logs.seq: the writer fills
// it with the statement below, a trigger removes deleted rows from it.

/**
 * Indexes the `?` rows inserted just before it (the last rowids), inside the same transaction.
 * Indexed: the string values of the logged request body, except enumerations and binary
 * payloads, and the response text.
 */
export const INDEX_INSERTED_CONTENT = `WITH inserted AS MATERIALIZED (SELECT last_insert_rowid() AS last)
  INSERT INTO request_logs_fts (rowid, content)
  SELECT seq, concat_ws(' ',
    (SELECT group_concat(value, ' ') FROM json_tree(request_content)
      WHERE type = 'text' AND key NOT IN ('role', 'model', 'type', 'url', 'data', 'signature')),
    response_content)
  FROM request_logs, inserted
  WHERE seq > inserted.last - ? AND seq <= inserted.last
    AND (request_content IS NOT NULL OR response_content IS NOT NULL)`;

/**
 * An FTS5 query in which every word of the search must start a word of the content. Words are
 * cut the way the unicode61 tokenizer cuts them, so each quoted term is a single token: the
 * index is built with detail=none, which has no phrases.
 */
export function ftsQuery(search: string): string | undefined {
  const words = search.match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu);
  return words?.map((word) => `"${word}"*`).join(" ");
}

/** Rows whose logged request or response content matches `search`. */
export function contentMatches(search: string): SQL {
  const query = ftsQuery(search);
  if (!query) return sql`false`;
  return sql`${requestLogs.seq} IN (SELECT rowid FROM request_logs_fts WHERE request_logs_fts MATCH ${query})`;
}
