-- The batched writer now fills request_logs_fts itself, one INSERT ... SELECT per batch inside
-- the batch's transaction (src/logs/full-text.ts), about a third cheaper than a trigger per row.
-- The index is rebuilt with detail=none: content_search matches words and word prefixes, never
-- phrases, so positions are not stored, which makes every insert cheaper again.
-- Deletions still reach the index through the request_logs_fts_delete trigger.
DROP TRIGGER IF EXISTS `request_logs_fts_insert`;
--> statement-breakpoint
DROP TABLE `request_logs_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `request_logs_fts` USING fts5(`content`, content='', contentless_delete=1, detail=none);
--> statement-breakpoint
INSERT INTO `request_logs_fts` (rowid, `content`)
SELECT `seq`, concat_ws(' ',
  (SELECT group_concat(value, ' ') FROM json_tree(`request_content`)
    WHERE type = 'text' AND key NOT IN ('role', 'model', 'type', 'url', 'data', 'signature')),
  `response_content`)
FROM `request_logs`
WHERE `request_content` IS NOT NULL OR `response_content` IS NOT NULL;
