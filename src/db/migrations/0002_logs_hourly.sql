-- Hourly usage behind the dashboard's long-window aggregates (src/logs/hourly.ts). WITHOUT ROWID:
-- the log writer rolls a batch up between inserting its rows and indexing their content, and an
-- insert here must leave last_insert_rowid() (which both statements read) alone.
CREATE TABLE `request_log_hours` (
	`hour` integer NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`status` text NOT NULL,
	`requests` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`reasoning_tokens` integer NOT NULL,
	`total_tokens` integer NOT NULL,
	`cost` real NOT NULL,
	`latency_ms` real NOT NULL,
	PRIMARY KEY(`hour`, `provider`, `model`, `status`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `request_log_hours`
SELECT `timestamp` / 3600000 * 3600000, `provider`, `model`, `status`, count(*), sum(`input_tokens`), sum(`output_tokens`),
  sum(`cached_tokens`), sum(`reasoning_tokens`), sum(`total_tokens`), coalesce(sum(`cost`), 0), sum(`latency_ms`)
FROM `request_logs` WHERE true GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
CREATE TRIGGER `request_log_hours_delete` AFTER DELETE ON `request_logs`
BEGIN
  UPDATE `request_log_hours` SET `requests` = `requests` - 1, `input_tokens` = `input_tokens` - old.`input_tokens`,
    `output_tokens` = `output_tokens` - old.`output_tokens`, `cached_tokens` = `cached_tokens` - old.`cached_tokens`,
    `reasoning_tokens` = `reasoning_tokens` - old.`reasoning_tokens`, `total_tokens` = `total_tokens` - old.`total_tokens`,
    `cost` = `cost` - coalesce(old.`cost`, 0), `latency_ms` = `latency_ms` - old.`latency_ms`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `provider` = old.`provider` AND `model` = old.`model` AND `status` = old.`status`;
  DELETE FROM `request_log_hours`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `provider` = old.`provider` AND `model` = old.`model` AND `status` = old.`status` AND `requests` <= 0;
END;
