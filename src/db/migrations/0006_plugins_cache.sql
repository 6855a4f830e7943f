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
CREATE INDEX `response_cache_expiry_idx` ON `response_cache` (`expires_at`);