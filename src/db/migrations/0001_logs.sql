CREATE TABLE `request_logs` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`parent_request_id` text,
	`timestamp` integer NOT NULL,
	`object` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`alias` text,
	`selected_key_id` text,
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
	`metadata` text NOT NULL,
	`attempts` text NOT NULL,
	`request_content` text,
	`response_content` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `request_logs_id_unique` ON `request_logs` (`id`);--> statement-breakpoint
CREATE INDEX `request_logs_timestamp_idx` ON `request_logs` (`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_model_idx` ON `request_logs` (`model`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_provider_idx` ON `request_logs` (`provider`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_status_idx` ON `request_logs` (`status`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_virtual_key_idx` ON `request_logs` (`virtual_key_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_parent_idx` ON `request_logs` (`parent_request_id`);--> statement-breakpoint
CREATE INDEX `request_logs_session_idx` ON `request_logs` (`session_id`);