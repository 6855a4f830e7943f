CREATE TABLE `access_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `access_sessions_subject_idx` ON `access_sessions` (`kind`,`subject`);--> statement-breakpoint
CREATE TABLE `admin_account` (
	`id` integer PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`password_hash` text NOT NULL,
	`enabled` integer NOT NULL,
	`source` text NOT NULL,
	`config_fingerprint` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`occurred_at` integer NOT NULL,
	`initiator_type` text NOT NULL,
	`initiator_id` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`outcome` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`ip` text NOT NULL,
	`summary` text NOT NULL,
	`signature` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_occurred_at_idx` ON `audit_events` (`occurred_at`);--> statement-breakpoint
CREATE TABLE `management_api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`scopes` text NOT NULL,
	`expires_at` integer,
	`created_by_type` text NOT NULL,
	`created_by_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `management_api_keys_name_unique` ON `management_api_keys` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `management_api_keys_key_hash_unique` ON `management_api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `rbac_role_permissions` (
	`role_id` integer NOT NULL,
	`permission_id` integer NOT NULL,
	PRIMARY KEY(`role_id`, `permission_id`),
	FOREIGN KEY (`role_id`) REFERENCES `rbac_roles`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `rbac_roles` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`builtin` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rbac_roles_name_unique` ON `rbac_roles` (`name`);--> statement-breakpoint
CREATE TABLE `rbac_users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`role_id` integer NOT NULL,
	`password_hash` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`role_id`) REFERENCES `rbac_roles`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rbac_users_username_unique` ON `rbac_users` (`username`);--> statement-breakpoint
CREATE TABLE `gateway_meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `provider_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`weight` real NOT NULL,
	`config_hash` text NOT NULL,
	`status` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`sealed_config` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`provider`) REFERENCES `providers`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `provider_keys_provider_idx` ON `provider_keys` (`provider`,`position`);--> statement-breakpoint
CREATE TABLE `providers` (
	`name` text PRIMARY KEY NOT NULL,
	`network_config` text DEFAULT '{}' NOT NULL,
	`custom_provider_config` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
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
CREATE INDEX `request_logs_time_usage_idx` ON `request_logs` (`timestamp`,`status`,`provider`,`model`,`input_tokens`,`output_tokens`,`cached_tokens`,`reasoning_tokens`,`total_tokens`,`cost`,`latency_ms`);--> statement-breakpoint
CREATE INDEX `request_logs_model_usage_idx` ON `request_logs` (`model`,`timestamp`,`provider`,`status`,`input_tokens`,`output_tokens`,`cached_tokens`,`reasoning_tokens`,`total_tokens`,`cost`,`latency_ms`);--> statement-breakpoint
CREATE INDEX `request_logs_virtual_key_idx` ON `request_logs` (`virtual_key_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `request_logs_parent_idx` ON `request_logs` (`parent_request_id`) WHERE "request_logs"."parent_request_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_session_idx` ON `request_logs` (`session_id`) WHERE "request_logs"."session_id" IS NOT NULL;--> statement-breakpoint
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
CREATE INDEX `mcp_tool_logs_llm_request_idx` ON `mcp_tool_logs` (`llm_request_id`);--> statement-breakpoint
CREATE TABLE `actor_snapshots` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`state` text NOT NULL,
	`snapshot` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX `actor_snapshots_kind_state_idx` ON `actor_snapshots` (`kind`,`state`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event` text NOT NULL,
	`job_id` text,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_status_code` integer,
	`redelivery_of` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_endpoint_idx` ON `webhook_deliveries` (`endpoint_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created_idx` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_id_idx` ON `webhook_deliveries` (`webhook_id`);--> statement-breakpoint
CREATE TABLE `webhook_delivery_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`started_at` integer NOT NULL,
	`latency_ms` integer NOT NULL,
	`status_code` integer,
	`outcome` text NOT NULL,
	`error` text,
	`response_excerpt` text,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_delivery_attempts_delivery_idx` ON `webhook_delivery_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`sealed_headers` text NOT NULL,
	`include_response` integer NOT NULL,
	`allow_private_network` integer NOT NULL,
	`disabled` integer NOT NULL,
	`max_retries` integer NOT NULL,
	`retry_backoff_initial_seconds` integer NOT NULL,
	`retry_backoff_max_seconds` integer NOT NULL,
	`attempt_timeout_seconds` integer NOT NULL,
	`max_response_payload_kbs` integer NOT NULL,
	`max_concurrent_deliveries` integer NOT NULL,
	`sealed_secret` text NOT NULL,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`last_success_at` integer,
	`last_failure_at` integer,
	`config_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_endpoints_name_unique` ON `webhook_endpoints` (`name`);--> statement-breakpoint
CREATE TABLE `plugins` (
	`name` text PRIMARY KEY NOT NULL,
	`path` text,
	`enabled` integer NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `response_cache` (
	`id` text PRIMARY KEY NOT NULL,
	`cache_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`params_hash` text NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`stream` integer NOT NULL,
	`status` integer NOT NULL,
	`headers` text NOT NULL,
	`body` blob NOT NULL,
	`embedding` blob,
	`embedding_model` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `response_cache_exact_idx` ON `response_cache` (`cache_key`,`request_hash`);--> statement-breakpoint
CREATE INDEX `response_cache_params_idx` ON `response_cache` (`cache_key`,`params_hash`);--> statement-breakpoint
CREATE INDEX `response_cache_expiry_idx` ON `response_cache` (`expires_at`);--> statement-breakpoint
CREATE TABLE `governance_customers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`budgets` text DEFAULT '[]' NOT NULL,
	`rate_limit` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `governance_pricing_overrides` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`scope_kind` text NOT NULL,
	`scope_id` text,
	`match_type` text NOT NULL,
	`pattern` text NOT NULL,
	`request_types` text DEFAULT '[]' NOT NULL,
	`patch` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `governance_routing_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer NOT NULL,
	`cel_expression` text NOT NULL,
	`targets` text NOT NULL,
	`fallbacks` text DEFAULT '[]' NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text,
	`priority` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `governance_routing_rules_scope_idx` ON `governance_routing_rules` (`scope`,`scope_id`,`priority`);--> statement-breakpoint
CREATE TABLE `governance_teams` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`customer_id` text,
	`budgets` text DEFAULT '[]' NOT NULL,
	`rate_limit` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`customer_id`) REFERENCES `governance_customers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `governance_usage` (
	`counter_id` text PRIMARY KEY NOT NULL,
	`used` real NOT NULL,
	`window_start` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `governance_virtual_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`is_active` integer NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`team_id` text,
	`customer_id` text,
	`provider_configs` text DEFAULT '[]' NOT NULL,
	`mcp_configs` text DEFAULT '[]' NOT NULL,
	`agent_grants` text DEFAULT '[]' NOT NULL,
	`budgets` text DEFAULT '[]' NOT NULL,
	`rate_limit` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `governance_teams`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`customer_id`) REFERENCES `governance_customers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `governance_virtual_keys_name_unique` ON `governance_virtual_keys` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `governance_virtual_keys_key_hash_unique` ON `governance_virtual_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `a2a_agents` (
	`name` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer NOT NULL,
	`sealed_headers` text NOT NULL,
	`agent_card` text,
	`card_fetched_at` integer,
	`card_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `a2a_tasks` (
	`agent_name` text NOT NULL,
	`task_id` text NOT NULL,
	`context_id` text,
	`state` text NOT NULL,
	`live` integer NOT NULL,
	`virtual_key_id` text,
	`status` text NOT NULL,
	`transitions` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`agent_name`, `task_id`)
);
--> statement-breakpoint
CREATE INDEX `a2a_tasks_live_idx` ON `a2a_tasks` (`live`,`updated_at`);--> statement-breakpoint
CREATE INDEX `a2a_tasks_agent_idx` ON `a2a_tasks` (`agent_name`,`updated_at`);--> statement-breakpoint
CREATE TABLE `warp_config` (
	`id` integer PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `warp_conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`title` text NOT NULL,
	`messages` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `warp_conversations_owner_idx` ON `warp_conversations` (`owner`,`updated_at`);--> statement-breakpoint
CREATE INDEX `warp_conversations_updated_idx` ON `warp_conversations` (`updated_at`);--> statement-breakpoint
CREATE TABLE `warp_log_vectors` (
	`namespace` text NOT NULL,
	`log_id` text NOT NULL,
	`space` text NOT NULL,
	`embedding` blob NOT NULL,
	`indexed_at` integer NOT NULL,
	PRIMARY KEY(`namespace`, `log_id`)
);
--> statement-breakpoint
CREATE INDEX `warp_log_vectors_space_idx` ON `warp_log_vectors` (`namespace`,`space`);--> statement-breakpoint
CREATE INDEX `warp_log_vectors_log_idx` ON `warp_log_vectors` (`log_id`);