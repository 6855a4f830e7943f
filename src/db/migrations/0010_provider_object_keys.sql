CREATE TABLE `provider_object_keys` (
	`provider` text NOT NULL,
	`object_id` text NOT NULL,
	`key_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `object_id`)
);
--> statement-breakpoint
CREATE INDEX `provider_object_keys_created_idx` ON `provider_object_keys` (`created_at`);