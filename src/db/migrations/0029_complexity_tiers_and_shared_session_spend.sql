CREATE TABLE `governance_complexity` (
	`id` text PRIMARY KEY NOT NULL,
	`tiers` text NOT NULL,
	`reference_prompts` text NOT NULL,
	`classifier_model` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `governance_session_spend` (
	`virtual_key_id` text NOT NULL,
	`session_id` text NOT NULL,
	`cost` real NOT NULL,
	`tokens` integer NOT NULL,
	`requests` integer NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`virtual_key_id`, `session_id`)
);
--> statement-breakpoint
CREATE INDEX `governance_session_spend_recent_idx` ON `governance_session_spend` (`virtual_key_id`,`last_at`);--> statement-breakpoint
ALTER TABLE `request_logs` ADD `complexity_tier` text;--> statement-breakpoint
ALTER TABLE `request_logs` ADD `complexity_score` real;--> statement-breakpoint
CREATE INDEX `request_logs_complexity_idx` ON `request_logs` (`complexity_tier`,`timestamp`) WHERE "request_logs"."complexity_tier" IS NOT NULL;