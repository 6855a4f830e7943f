-- Hourly roll-ups the Analytics page reads instead of every log of a long window
-- (src/logs/hourly.ts, src/logs/group-hours.ts, which this file repeats): request_log_hours gains
-- cache hits and time to first token, and request_log_group_hours keeps the same figures per
-- virtual key, team, customer, error type, complexity tier and metadata value. WITHOUT ROWID like
-- request_log_hours: the writer's roll-up must leave last_insert_rowid() alone. Both are rebuilt
-- from the logs here, and kept by triggers on deletion and on a change of a log's metadata.
-- The logs page: the tool index holds the names it checks, and request_log_metadata gains each
-- log's timestamp in its key, so a page filtered by a pair reads its newest entries in order, and
-- its status and latency, so the latency percentiles of a metadata value read no log.
CREATE TABLE `request_log_group_hours` (
	`grouping` text NOT NULL,
	`hour` integer NOT NULL,
	`value` text NOT NULL,
	`status` text NOT NULL,
	`requests` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`reasoning_tokens` integer NOT NULL,
	`total_tokens` integer NOT NULL,
	`cost` real NOT NULL,
	`latency_ms` real NOT NULL,
	`cache_hits` integer DEFAULT 0 NOT NULL,
	`first_token_ms` real DEFAULT 0 NOT NULL,
	`first_token_requests` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`grouping`, `hour`, `value`, `status`)
) WITHOUT ROWID;
--> statement-breakpoint
DROP INDEX `request_logs_tool_calls_idx`;--> statement-breakpoint
CREATE INDEX `request_logs_tool_calls_idx` ON `request_logs` (`timestamp`,`tool_call_names`) WHERE "request_logs"."tool_call_names" <> '[]';--> statement-breakpoint
ALTER TABLE `request_log_hours` ADD `cache_hits` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `request_log_hours` ADD `first_token_ms` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `request_log_hours` ADD `first_token_requests` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
DELETE FROM `request_log_hours`;--> statement-breakpoint
INSERT INTO `request_log_hours`
SELECT `timestamp` / 3600000 * 3600000, `provider`, `model`, `status`, count(*), sum(`input_tokens`), sum(`output_tokens`), sum(`cached_tokens`),
  sum(`reasoning_tokens`), sum(`total_tokens`), coalesce(sum(`cost`), 0), sum(`latency_ms`), sum(`cache_hit_type` IS NOT NULL),
  coalesce(sum(`time_to_first_token_ms`), 0), count(`time_to_first_token_ms`)
FROM `request_logs` WHERE `internal_caller` IS NULL GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO `request_log_group_hours`
SELECT `grouping`, `timestamp` / 3600000 * 3600000, `value`, `status`, count(*), sum(`input_tokens`), sum(`output_tokens`), sum(`cached_tokens`),
  sum(`reasoning_tokens`), sum(`total_tokens`), coalesce(sum(`cost`), 0), sum(`latency_ms`), sum(`cache_hit_type` IS NOT NULL),
  coalesce(sum(`time_to_first_token_ms`), 0), count(`time_to_first_token_ms`)
FROM (
  SELECT `entry`.`key` AS `grouping`, `entry`.`value` AS `value`, `timestamp`, `status`, `input_tokens`, `output_tokens`, `cached_tokens`, `reasoning_tokens`,
    `total_tokens`, `cost`, `latency_ms`, `cache_hit_type`, `time_to_first_token_ms`
  FROM `request_logs`, json_each(json_object('virtual_key', `virtual_key_id`, 'team', `team_id`, 'customer', `customer_id`, 'error_type', `error_type`, 'complexity_tier', `complexity_tier`)) AS `entry`
  WHERE `internal_caller` IS NULL AND `entry`.`type` = 'text'
  UNION ALL
  SELECT 'metadata.' || `entry`.`key`, `entry`.`value`, `timestamp`, `status`, `input_tokens`, `output_tokens`, `cached_tokens`, `reasoning_tokens`,
    `total_tokens`, `cost`, `latency_ms`, `cache_hit_type`, `time_to_first_token_ms`
  FROM `request_logs`, json_each(`request_logs`.`metadata`) AS `entry`
  WHERE `internal_caller` IS NULL AND `request_logs`.`metadata` <> '{}' AND `entry`.`type` = 'text'
) GROUP BY 1, 2, 3, 4;--> statement-breakpoint
DROP TRIGGER IF EXISTS `request_log_hours_delete`;--> statement-breakpoint
CREATE TRIGGER `request_log_hours_delete` AFTER DELETE ON `request_logs` WHEN old.`internal_caller` IS NULL
BEGIN
  UPDATE `request_log_hours` SET `requests` = `requests` - 1, `input_tokens` = `input_tokens` - old.`input_tokens`,
    `output_tokens` = `output_tokens` - old.`output_tokens`, `cached_tokens` = `cached_tokens` - old.`cached_tokens`,
    `reasoning_tokens` = `reasoning_tokens` - old.`reasoning_tokens`, `total_tokens` = `total_tokens` - old.`total_tokens`,
    `cost` = `cost` - coalesce(old.`cost`, 0), `latency_ms` = `latency_ms` - old.`latency_ms`,
    `cache_hits` = `cache_hits` - (old.`cache_hit_type` IS NOT NULL),
    `first_token_ms` = `first_token_ms` - coalesce(old.`time_to_first_token_ms`, 0),
    `first_token_requests` = `first_token_requests` - (old.`time_to_first_token_ms` IS NOT NULL)
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `provider` = old.`provider` AND `model` = old.`model` AND `status` = old.`status`;
  DELETE FROM `request_log_hours`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `provider` = old.`provider` AND `model` = old.`model` AND `status` = old.`status` AND `requests` <= 0;
END;--> statement-breakpoint
CREATE TRIGGER `request_log_group_hours_delete` AFTER DELETE ON `request_logs` WHEN old.`internal_caller` IS NULL
BEGIN
  -- Each (grouping, value) pair found by the whole key: a compound or joined list of pairs would have SQLite scan the table.
  UPDATE `request_log_group_hours` SET `requests` = `requests` - 1, `input_tokens` = `input_tokens` - old.`input_tokens`,
    `output_tokens` = `output_tokens` - old.`output_tokens`, `cached_tokens` = `cached_tokens` - old.`cached_tokens`,
    `reasoning_tokens` = `reasoning_tokens` - old.`reasoning_tokens`, `total_tokens` = `total_tokens` - old.`total_tokens`,
    `cost` = `cost` - coalesce(old.`cost`, 0), `latency_ms` = `latency_ms` - old.`latency_ms`,
    `cache_hits` = `cache_hits` - (old.`cache_hit_type` IS NOT NULL),
    `first_token_ms` = `first_token_ms` - coalesce(old.`time_to_first_token_ms`, 0),
    `first_token_requests` = `first_token_requests` - (old.`time_to_first_token_ms` IS NOT NULL)
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND (`grouping`, `value`) IN (VALUES ('virtual_key', old.`virtual_key_id`), ('team', old.`team_id`), ('customer', old.`customer_id`),
    ('error_type', old.`error_type`), ('complexity_tier', old.`complexity_tier`));
  UPDATE `request_log_group_hours` SET `requests` = `requests` - 1, `input_tokens` = `input_tokens` - old.`input_tokens`,
    `output_tokens` = `output_tokens` - old.`output_tokens`, `cached_tokens` = `cached_tokens` - old.`cached_tokens`,
    `reasoning_tokens` = `reasoning_tokens` - old.`reasoning_tokens`, `total_tokens` = `total_tokens` - old.`total_tokens`,
    `cost` = `cost` - coalesce(old.`cost`, 0), `latency_ms` = `latency_ms` - old.`latency_ms`,
    `cache_hits` = `cache_hits` - (old.`cache_hit_type` IS NOT NULL),
    `first_token_ms` = `first_token_ms` - coalesce(old.`time_to_first_token_ms`, 0),
    `first_token_requests` = `first_token_requests` - (old.`time_to_first_token_ms` IS NOT NULL)
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND (`grouping`, `value`) IN (SELECT 'metadata.' || `key`, `value` FROM json_each(old.`metadata`) WHERE `type` = 'text');
  DELETE FROM `request_log_group_hours` WHERE `requests` <= 0 AND `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND (`grouping`, `value`) IN (VALUES ('virtual_key', old.`virtual_key_id`), ('team', old.`team_id`), ('customer', old.`customer_id`),
    ('error_type', old.`error_type`), ('complexity_tier', old.`complexity_tier`));
  DELETE FROM `request_log_group_hours` WHERE `requests` <= 0 AND `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND (`grouping`, `value`) IN (SELECT 'metadata.' || `key`, `value` FROM json_each(old.`metadata`) WHERE `type` = 'text');
END;
--> statement-breakpoint
-- A log's metadata may change after it is written (a resumed stream notes its resumes): its pairs
-- and its metadata groups follow, the old ones out, the new ones in.
CREATE TRIGGER `request_log_group_hours_update` AFTER UPDATE OF `metadata` ON `request_logs` WHEN old.`internal_caller` IS NULL AND old.`metadata` IS NOT new.`metadata`
BEGIN
  UPDATE `request_log_group_hours` SET `requests` = `requests` - 1, `input_tokens` = `input_tokens` - old.`input_tokens`,
    `output_tokens` = `output_tokens` - old.`output_tokens`, `cached_tokens` = `cached_tokens` - old.`cached_tokens`,
    `reasoning_tokens` = `reasoning_tokens` - old.`reasoning_tokens`, `total_tokens` = `total_tokens` - old.`total_tokens`,
    `cost` = `cost` - coalesce(old.`cost`, 0), `latency_ms` = `latency_ms` - old.`latency_ms`,
    `cache_hits` = `cache_hits` - (old.`cache_hit_type` IS NOT NULL),
    `first_token_ms` = `first_token_ms` - coalesce(old.`time_to_first_token_ms`, 0),
    `first_token_requests` = `first_token_requests` - (old.`time_to_first_token_ms` IS NOT NULL)
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND (`grouping`, `value`) IN (SELECT 'metadata.' || `key`, `value` FROM json_each(old.`metadata`) WHERE `type` = 'text');
  DELETE FROM `request_log_group_hours` WHERE `requests` <= 0 AND `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND (`grouping`, `value`) IN (SELECT 'metadata.' || `key`, `value` FROM json_each(old.`metadata`) WHERE `type` = 'text');
  INSERT INTO `request_log_group_hours`
  SELECT 'metadata.' || `key`, new.`timestamp` / 3600000 * 3600000, `value`, new.`status`, 1, new.`input_tokens`, new.`output_tokens`,
    new.`cached_tokens`, new.`reasoning_tokens`, new.`total_tokens`, coalesce(new.`cost`, 0), new.`latency_ms`, new.`cache_hit_type` IS NOT NULL,
    coalesce(new.`time_to_first_token_ms`, 0), new.`time_to_first_token_ms` IS NOT NULL
  FROM json_each(new.`metadata`) WHERE `type` = 'text'
  ON CONFLICT DO UPDATE SET `requests` = `requests` + excluded.`requests`, `input_tokens` = `input_tokens` + excluded.`input_tokens`,
    `output_tokens` = `output_tokens` + excluded.`output_tokens`, `cached_tokens` = `cached_tokens` + excluded.`cached_tokens`,
    `reasoning_tokens` = `reasoning_tokens` + excluded.`reasoning_tokens`, `total_tokens` = `total_tokens` + excluded.`total_tokens`,
    `cost` = `cost` + excluded.`cost`, `latency_ms` = `latency_ms` + excluded.`latency_ms`, `cache_hits` = `cache_hits` + excluded.`cache_hits`,
    `first_token_ms` = `first_token_ms` + excluded.`first_token_ms`, `first_token_requests` = `first_token_requests` + excluded.`first_token_requests`;
END;--> statement-breakpoint
DROP TRIGGER `request_log_metadata_insert`;--> statement-breakpoint
DROP TRIGGER `request_log_metadata_delete`;--> statement-breakpoint
DROP TABLE `request_log_metadata`;--> statement-breakpoint
CREATE TABLE `request_log_metadata` (
	`key` text NOT NULL,
	`value` text NOT NULL,
	`timestamp` integer NOT NULL,
	`seq` integer NOT NULL,
	`status` text NOT NULL,
	`latency_ms` real NOT NULL,
	PRIMARY KEY(`key`, `value`, `timestamp`, `seq`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `request_log_metadata` SELECT `entry`.`key`, `entry`.`value`, `request_logs`.`timestamp`, `request_logs`.`seq`, `request_logs`.`status`, `request_logs`.`latency_ms`
FROM `request_logs`, json_each(`request_logs`.`metadata`) AS `entry` WHERE `request_logs`.`metadata` <> '{}' AND `entry`.`type` = 'text';
--> statement-breakpoint
CREATE TRIGGER `request_log_metadata_insert` AFTER INSERT ON `request_logs` WHEN new.`metadata` <> '{}'
BEGIN
  INSERT INTO `request_log_metadata` SELECT `key`, `value`, new.`timestamp`, new.`seq`, new.`status`, new.`latency_ms` FROM json_each(new.`metadata`) WHERE `type` = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `request_log_metadata_delete` AFTER DELETE ON `request_logs` WHEN old.`metadata` <> '{}'
BEGIN
  DELETE FROM `request_log_metadata` WHERE (`key`, `value`, `timestamp`, `seq`) IN (SELECT `key`, `value`, old.`timestamp`, old.`seq` FROM json_each(old.`metadata`) WHERE `type` = 'text');
END;
--> statement-breakpoint
CREATE TRIGGER `request_log_metadata_update` AFTER UPDATE OF `metadata` ON `request_logs` WHEN old.`metadata` IS NOT new.`metadata`
BEGIN
  DELETE FROM `request_log_metadata` WHERE (`key`, `value`, `timestamp`, `seq`) IN (SELECT `key`, `value`, old.`timestamp`, old.`seq` FROM json_each(old.`metadata`) WHERE `type` = 'text');
  INSERT INTO `request_log_metadata` SELECT `key`, `value`, new.`timestamp`, new.`seq`, new.`status`, new.`latency_ms` FROM json_each(new.`metadata`) WHERE `type` = 'text';
END;
