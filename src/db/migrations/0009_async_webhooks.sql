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
CREATE UNIQUE INDEX `webhook_endpoints_name_unique` ON `webhook_endpoints` (`name`);