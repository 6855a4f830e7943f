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
