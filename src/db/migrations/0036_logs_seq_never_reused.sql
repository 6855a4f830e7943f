-- request_logs.seq becomes AUTOINCREMENT, so SQLite never hands out again the number of a row
-- that was deleted: a log sink's cursor (log_sink_cursors.after_seq) and a live reader's last seq
-- stay behind every row stored later, even after the newest logs are deleted. SQLite cannot add
-- AUTOINCREMENT to a table in place, so the table is rebuilt with its rows, their numbers (the
-- full-text index is keyed by them) and its indexes; dropping the old table drops the deletion
-- triggers of 0001 and 0024, created again here unchanged.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_request_logs` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`parent_request_id` text,
	`timestamp` integer NOT NULL,
	`object` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`alias` text,
	`selected_key_id` text,
	`conversation_id` text,
	`complexity_tier` text,
	`complexity_score` real,
	`virtual_key_id` text,
	`virtual_key_name` text,
	`team_id` text,
	`customer_id` text,
	`user_id` text,
	`business_unit_id` text,
	`project_id` text,
	`routing_rule_id` text,
	`routing_rule_name` text,
	`routing_engine_used` text,
	`status` text NOT NULL,
	`status_code` integer,
	`error_type` text,
	`error_message` text,
	`stop_reason` text,
	`tool_call_names` text NOT NULL,
	`cache_hit_type` text,
	`guardrails` text,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`reasoning_tokens` integer NOT NULL,
	`total_tokens` integer NOT NULL,
	`cost` real,
	`latency_ms` real NOT NULL,
	`time_to_first_token_ms` real,
	`stream` integer NOT NULL,
	`session_id` text,
	`region` text,
	`internal_caller` text,
	`metadata` text NOT NULL,
	`attempts` text NOT NULL,
	`request_content` text,
	`response_content` text
);
--> statement-breakpoint
INSERT INTO `__new_request_logs`("seq", "id", "parent_request_id", "timestamp", "object", "provider", "model", "alias", "selected_key_id", "conversation_id", "complexity_tier", "complexity_score", "virtual_key_id", "virtual_key_name", "team_id", "customer_id", "user_id", "business_unit_id", "project_id", "routing_rule_id", "routing_rule_name", "routing_engine_used", "status", "status_code", "error_type", "error_message", "stop_reason", "tool_call_names", "cache_hit_type", "guardrails", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "total_tokens", "cost", "latency_ms", "time_to_first_token_ms", "stream", "session_id", "region", "internal_caller", "metadata", "attempts", "request_content", "response_content") SELECT "seq", "id", "parent_request_id", "timestamp", "object", "provider", "model", "alias", "selected_key_id", "conversation_id", "complexity_tier", "complexity_score", "virtual_key_id", "virtual_key_name", "team_id", "customer_id", "user_id", "business_unit_id", "project_id", "routing_rule_id", "routing_rule_name", "routing_engine_used", "status", "status_code", "error_type", "error_message", "stop_reason", "tool_call_names", "cache_hit_type", "guardrails", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "total_tokens", "cost", "latency_ms", "time_to_first_token_ms", "stream", "session_id", "region", "internal_caller", "metadata", "attempts", "request_content", "response_content" FROM `request_logs`;--> statement-breakpoint
DROP TABLE `request_logs`;--> statement-breakpoint
ALTER TABLE `__new_request_logs` RENAME TO `request_logs`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `request_logs_id_unique` ON `request_logs` (`id`);--> statement-breakpoint
CREATE INDEX `request_logs_time_usage_idx` ON `request_logs` (`timestamp`,`status`,`provider`,`model`,`input_tokens`,`output_tokens`,`cached_tokens`,`reasoning_tokens`,`total_tokens`,`cost`,`latency_ms`);--> statement-breakpoint
CREATE INDEX `request_logs_model_usage_idx` ON `request_logs` (`model`,`timestamp`,`provider`,`status`,`input_tokens`,`output_tokens`,`cached_tokens`,`reasoning_tokens`,`total_tokens`,`cost`,`latency_ms`);--> statement-breakpoint
CREATE INDEX `request_logs_virtual_key_idx` ON `request_logs` (`virtual_key_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_parent_idx` ON `request_logs` (`parent_request_id`) WHERE "request_logs"."parent_request_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_session_idx` ON `request_logs` (`session_id`) WHERE "request_logs"."session_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_status_code_idx` ON `request_logs` (`status_code`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_error_type_idx` ON `request_logs` (`error_type`,`timestamp`) WHERE "request_logs"."error_type" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_internal_idx` ON `request_logs` (`timestamp`) WHERE "request_logs"."internal_caller" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_conversation_idx` ON `request_logs` (`conversation_id`) WHERE "request_logs"."conversation_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_complexity_idx` ON `request_logs` (`complexity_tier`,`timestamp`) WHERE "request_logs"."complexity_tier" IS NOT NULL;--> statement-breakpoint
CREATE TRIGGER `request_logs_fts_delete` AFTER DELETE ON `request_logs`
WHEN old.`request_content` IS NOT NULL OR old.`response_content` IS NOT NULL
BEGIN
  DELETE FROM `request_logs_fts` WHERE rowid = old.`seq`;
END;--> statement-breakpoint
CREATE TRIGGER `request_log_hours_delete` AFTER DELETE ON `request_logs` WHEN old.`internal_caller` IS NULL
BEGIN
  UPDATE `request_log_hours` SET `requests` = `requests` - 1, `input_tokens` = `input_tokens` - old.`input_tokens`,
    `output_tokens` = `output_tokens` - old.`output_tokens`, `cached_tokens` = `cached_tokens` - old.`cached_tokens`,
    `reasoning_tokens` = `reasoning_tokens` - old.`reasoning_tokens`, `total_tokens` = `total_tokens` - old.`total_tokens`,
    `cost` = `cost` - coalesce(old.`cost`, 0), `latency_ms` = `latency_ms` - old.`latency_ms`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `provider` = old.`provider` AND `model` = old.`model` AND `status` = old.`status`;
  DELETE FROM `request_log_hours`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `provider` = old.`provider` AND `model` = old.`model` AND `status` = old.`status` AND `requests` <= 0;
END;--> statement-breakpoint
CREATE TRIGGER `request_log_latencies_delete` AFTER DELETE ON `request_logs` WHEN old.`internal_caller` IS NULL
BEGIN
  UPDATE `request_log_latencies` SET `requests` = `requests` - 1
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND `bucket` = CAST(ceil(ln(max(old.`latency_ms`, 0.001)) / ln(1.02)) AS INTEGER);
  DELETE FROM `request_log_latencies`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND `bucket` = CAST(ceil(ln(max(old.`latency_ms`, 0.001)) / ln(1.02)) AS INTEGER) AND `requests` <= 0;
END;--> statement-breakpoint
-- Numbers already handed out twice before this migration cannot be told apart, but the next ones
-- start past every sink's cursor, so no row stored from now on lands behind one.
INSERT INTO `sqlite_sequence` (`name`, `seq`)
SELECT 'request_logs', 0 WHERE NOT EXISTS (SELECT 1 FROM `sqlite_sequence` WHERE `name` = 'request_logs');--> statement-breakpoint
UPDATE `sqlite_sequence` SET `seq` = max(`seq`, coalesce((SELECT max(`after_seq`) FROM `log_sink_cursors`), 0))
WHERE `name` = 'request_logs';
