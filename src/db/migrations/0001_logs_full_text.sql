-- Full-text index behind the logs' content_search. FTS5 has no drizzle schema builder, so it is
-- written by hand: a contentless index (no copy of the text) keyed by request_logs.seq, with
-- detail=none (content_search matches words and prefixes, never phrases, so no positions are
-- stored and every insert is cheaper). The batched log writer fills it, one INSERT ... SELECT per
-- batch inside the batch's transaction (src/logs/full-text.ts); deletions reach it by trigger.
CREATE VIRTUAL TABLE `request_logs_fts` USING fts5(`content`, content='', contentless_delete=1, detail=none);
--> statement-breakpoint
CREATE TRIGGER `request_logs_fts_delete` AFTER DELETE ON `request_logs`
WHEN old.`request_content` IS NOT NULL OR old.`response_content` IS NOT NULL
BEGIN
  DELETE FROM `request_logs_fts` WHERE rowid = old.`seq`;
END;
