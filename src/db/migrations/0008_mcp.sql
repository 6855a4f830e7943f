CREATE TABLE `mcp_clients` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`connection_type` text NOT NULL,
	`connection_string` text,
	`stdio_launch` text,
	`auth_type` text NOT NULL,
	`sealed_secrets` text NOT NULL,
	`per_user_header_keys` text NOT NULL,
	`tools_to_execute` text NOT NULL,
	`tools_to_auto_execute` text NOT NULL,
	`tool_pricing` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_clients_name_unique` ON `mcp_clients` (`name`);--> statement-breakpoint
CREATE TABLE `mcp_per_user_credentials` (
	`id` text PRIMARY KEY NOT NULL,
	`mode` text NOT NULL,
	`identity` text NOT NULL,
	`mcp_client_id` text NOT NULL,
	`sealed_values` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`mcp_client_id`) REFERENCES `mcp_clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_per_user_credentials_owner_idx` ON `mcp_per_user_credentials` (`mode`,`identity`,`mcp_client_id`);--> statement-breakpoint
CREATE TABLE `mcp_per_user_header_flows` (
	`id` text PRIMARY KEY NOT NULL,
	`mode` text NOT NULL,
	`identity` text NOT NULL,
	`mcp_client_id` text NOT NULL,
	`temp_token_hash` text NOT NULL,
	`state` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`mcp_client_id`) REFERENCES `mcp_clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mcp_per_user_header_flows_owner_idx` ON `mcp_per_user_header_flows` (`mode`,`identity`,`mcp_client_id`);--> statement-breakpoint
CREATE TABLE `mcp_tool_logs` (
	`id` text PRIMARY KEY NOT NULL,
	`timestamp` integer NOT NULL,
	`llm_request_id` text,
	`tool_name` text NOT NULL,
	`server_label` text NOT NULL,
	`mcp_client_id` text,
	`source` text NOT NULL,
	`status` text NOT NULL,
	`arguments` text,
	`result` text,
	`error_message` text,
	`latency_ms` real,
	`cost` real,
	`virtual_key_id` text,
	`virtual_key_name` text
);
--> statement-breakpoint
CREATE INDEX `mcp_tool_logs_timestamp_idx` ON `mcp_tool_logs` (`timestamp`);--> statement-breakpoint
CREATE INDEX `mcp_tool_logs_llm_request_idx` ON `mcp_tool_logs` (`llm_request_id`);