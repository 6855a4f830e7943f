ALTER TABLE `mcp_tool_logs` ADD `change_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `mcp_tool_logs_change_idx` ON `mcp_tool_logs` (`change_seq`);