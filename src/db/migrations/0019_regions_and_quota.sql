CREATE TABLE `governance_quota` (
	`counter_id` text PRIMARY KEY NOT NULL,
	`claimed` real NOT NULL,
	`last_grant` real NOT NULL,
	`window_start` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `request_logs` ADD `region` text;--> statement-breakpoint
ALTER TABLE `mcp_tool_logs` ADD `region` text;