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
CREATE INDEX `governance_routing_rules_scope_idx` ON `governance_routing_rules` (`scope`,`scope_id`,`priority`);
--> statement-breakpoint
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
CREATE UNIQUE INDEX `governance_virtual_keys_name_unique` ON `governance_virtual_keys` (`name`);
--> statement-breakpoint
CREATE UNIQUE INDEX `governance_virtual_keys_key_hash_unique` ON `governance_virtual_keys` (`key_hash`);
