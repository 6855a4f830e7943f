-- Each metadata pair of each request log, kept by the triggers below (src/logs/conditions.ts reads it
-- for the metadata_<key> filters). WITHOUT ROWID: an insert here, from a trigger of the log
-- writer's batch insert, must leave last_insert_rowid() alone (src/logs/hourly.ts).
CREATE TABLE `request_log_metadata` (
	`key` text NOT NULL,
	`value` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`key`, `value`, `seq`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `request_logs_team_idx` ON `request_logs` (`team_id`,`timestamp`) WHERE "request_logs"."team_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_customer_idx` ON `request_logs` (`customer_id`,`timestamp`) WHERE "request_logs"."customer_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_selected_key_idx` ON `request_logs` (`selected_key_id`,`timestamp`) WHERE "request_logs"."selected_key_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_tool_calls_idx` ON `request_logs` (`timestamp`) WHERE "request_logs"."tool_call_names" <> '[]';--> statement-breakpoint
CREATE INDEX `request_logs_guardrails_idx` ON `request_logs` (`timestamp`) WHERE "request_logs"."guardrails" IS NOT NULL;--> statement-breakpoint
INSERT INTO `request_log_metadata` SELECT `entry`.`key`, `entry`.`value`, `request_logs`.`seq`
FROM `request_logs`, json_each(`request_logs`.`metadata`) AS `entry` WHERE `request_logs`.`metadata` <> '{}' AND `entry`.`type` = 'text';
--> statement-breakpoint
CREATE TRIGGER `request_log_metadata_insert` AFTER INSERT ON `request_logs` WHEN new.`metadata` <> '{}'
BEGIN
  INSERT INTO `request_log_metadata` SELECT `key`, `value`, new.`seq` FROM json_each(new.`metadata`) WHERE `type` = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `request_log_metadata_delete` AFTER DELETE ON `request_logs` WHEN old.`metadata` <> '{}'
BEGIN
  DELETE FROM `request_log_metadata` WHERE (`key`, `value`, `seq`) IN (SELECT `key`, `value`, old.`seq` FROM json_each(old.`metadata`) WHERE `type` = 'text');
END;
