CREATE TABLE `alert_channels` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`settings` text NOT NULL,
	`sealed_secret` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_channels_name_unique` ON `alert_channels` (`name`);--> statement-breakpoint
CREATE TABLE `alert_history` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`rule_id` text NOT NULL,
	`at` integer NOT NULL,
	`from_state` text,
	`to_state` text NOT NULL,
	`figures` text,
	`note` text
);
--> statement-breakpoint
CREATE INDEX `alert_history_rule_idx` ON `alert_history` (`rule_id`,`seq`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`condition` text NOT NULL,
	`window` text NOT NULL,
	`interval_seconds` integer NOT NULL,
	`for_seconds` integer NOT NULL,
	`cooldown_seconds` integer NOT NULL,
	`severity` text NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text,
	`channel_ids` text NOT NULL,
	`enabled` integer NOT NULL,
	`builtin` text,
	`state` text DEFAULT 'ok' NOT NULL,
	`state_since` integer,
	`last_evaluated_at` integer,
	`last_figures` text,
	`silenced_until` integer,
	`acknowledged_by` text,
	`acknowledged_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_rules_name_unique` ON `alert_rules` (`name`);