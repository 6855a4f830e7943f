CREATE TABLE `actor_instances` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`state` text NOT NULL,
	`state_path` text NOT NULL,
	`status` text NOT NULL,
	`node` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`ended_at` integer,
	`next_timer_at` integer,
	PRIMARY KEY(`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX `actor_instances_kind_state_idx` ON `actor_instances` (`kind`,`state_path`);--> statement-breakpoint
CREATE INDEX `actor_instances_ended_idx` ON `actor_instances` (`ended_at`);--> statement-breakpoint
CREATE TABLE `actor_transitions` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`from_state` text,
	`event` text NOT NULL,
	`to_state` text NOT NULL,
	`at` integer NOT NULL,
	`node` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `actor_transitions_actor_idx` ON `actor_transitions` (`kind`,`actor_id`,`seq`);--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `max_deliveries_per_second` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `failing_after_failed_attempts` integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `disable_after_failing_seconds` integer DEFAULT 432000 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `disable_after_failed_messages` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `state` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `state_since` integer;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `failing_since` integer;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `disabled_reason` text;