ALTER TABLE `mcp_oauth_connections` ADD `refresh_holder` text;--> statement-breakpoint
ALTER TABLE `mcp_oauth_connections` ADD `refresh_until` integer;