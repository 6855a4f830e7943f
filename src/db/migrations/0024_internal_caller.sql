-- Indexes for the logs page's status code and error type filters. The gateway's own requests (Warp, LLM guardrails, video reads) are marked by internal_caller and
-- kept out of the hourly tables, which hold client traffic only (src/logs/hourly.ts): the deletion
-- triggers of 0002 and 0005 skip them too, or deleting one would subtract what was never added.
ALTER TABLE `request_logs` ADD `internal_caller` text;--> statement-breakpoint
CREATE INDEX `request_logs_status_code_idx` ON `request_logs` (`status_code`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_error_type_idx` ON `request_logs` (`error_type`,`timestamp`) WHERE "request_logs"."error_type" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_internal_idx` ON `request_logs` (`timestamp`) WHERE "request_logs"."internal_caller" IS NOT NULL;--> statement-breakpoint
DROP TRIGGER IF EXISTS `request_log_hours_delete`;--> statement-breakpoint
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
DROP TRIGGER IF EXISTS `request_log_latencies_delete`;--> statement-breakpoint
CREATE TRIGGER `request_log_latencies_delete` AFTER DELETE ON `request_logs` WHEN old.`internal_caller` IS NULL
BEGIN
  UPDATE `request_log_latencies` SET `requests` = `requests` - 1
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND `bucket` = CAST(ceil(ln(max(old.`latency_ms`, 0.001)) / ln(1.02)) AS INTEGER);
  DELETE FROM `request_log_latencies`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND `bucket` = CAST(ceil(ln(max(old.`latency_ms`, 0.001)) / ln(1.02)) AS INTEGER) AND `requests` <= 0;
END;
