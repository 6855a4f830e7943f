-- Latency histogram per hour and status behind long-window latency percentiles
-- (src/logs/latency-histogram.ts, whose latencyBucket this file repeats: a log lands in bucket
-- ceil(ln(latency) / ln(1.02)), so changing the width needs a migration that rebuilds the table).
-- WITHOUT ROWID for the same reason as request_log_hours: the writer's roll-up must leave
-- last_insert_rowid() alone.
CREATE TABLE `request_log_latencies` (
	`hour` integer NOT NULL,
	`status` text NOT NULL,
	`bucket` integer NOT NULL,
	`requests` integer NOT NULL,
	PRIMARY KEY(`bucket`, `hour`, `status`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `request_log_latencies`
SELECT `timestamp` / 3600000 * 3600000, `status`, CAST(ceil(ln(max(`latency_ms`, 0.001)) / ln(1.02)) AS INTEGER), count(*)
FROM `request_logs` WHERE true GROUP BY 1, 2, 3;
--> statement-breakpoint
CREATE TRIGGER `request_log_latencies_delete` AFTER DELETE ON `request_logs`
BEGIN
  UPDATE `request_log_latencies` SET `requests` = `requests` - 1
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND `bucket` = CAST(ceil(ln(max(old.`latency_ms`, 0.001)) / ln(1.02)) AS INTEGER);
  DELETE FROM `request_log_latencies`
  WHERE `hour` = old.`timestamp` / 3600000 * 3600000 AND `status` = old.`status`
    AND `bucket` = CAST(ceil(ln(max(old.`latency_ms`, 0.001)) / ln(1.02)) AS INTEGER) AND `requests` <= 0;
END;
