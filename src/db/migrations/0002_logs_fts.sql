-- Full-text index behind content_search. FTS5 has no drizzle schema builder, so it is written
-- by hand: a contentless index (it stores no copy of the text) keyed by request_logs.seq and
-- kept in step by the two triggers. Indexed: the string values of the logged request body
-- (except enumerations and binary payloads) and the response text.
CREATE VIRTUAL TABLE `request_logs_fts` USING fts5(`content`, content='', contentless_delete=1);
--> statement-breakpoint
CREATE TRIGGER `request_logs_fts_insert` AFTER INSERT ON `request_logs`
WHEN new.`request_content` IS NOT NULL OR new.`response_content` IS NOT NULL
BEGIN
  INSERT INTO `request_logs_fts`(rowid, `content`) VALUES (
    new.`seq`,
    concat_ws(' ',
      (SELECT group_concat(value, ' ') FROM json_tree(new.`request_content`)
        WHERE type = 'text' AND key NOT IN ('role', 'model', 'type', 'url', 'data', 'signature')),
      new.`response_content`)
  );
END;
--> statement-breakpoint
CREATE TRIGGER `request_logs_fts_delete` AFTER DELETE ON `request_logs`
WHEN old.`request_content` IS NOT NULL OR old.`response_content` IS NOT NULL
BEGIN
  DELETE FROM `request_logs_fts` WHERE rowid = old.`seq`;
END;
