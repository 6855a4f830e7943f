ALTER TABLE `webhook_endpoints` ADD `max_deliveries_per_second` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `failing_after_failed_attempts` integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `disable_after_failing_seconds` integer DEFAULT 432000 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `disable_after_failed_messages` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `state` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `state_since` integer;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `failing_since` integer;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `disabled_reason` text;