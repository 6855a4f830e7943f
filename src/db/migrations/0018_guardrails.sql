CREATE TABLE `guardrail_policies` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`enabled` integer NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text,
	`restore_redacted` integer NOT NULL,
	`checks` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `request_logs` ADD `guardrails` text;