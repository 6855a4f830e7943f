CREATE TABLE `mcp_virtual_servers` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`tools` text NOT NULL,
	`resources` text NOT NULL,
	`prompts` text NOT NULL,
	`access` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_virtual_servers_slug_unique` ON `mcp_virtual_servers` (`slug`);--> statement-breakpoint
ALTER TABLE `mcp_tool_logs` ADD `virtual_server` text;--> statement-breakpoint
CREATE INDEX `mcp_tool_logs_virtual_server_idx` ON `mcp_tool_logs` (`virtual_server`,`timestamp`);