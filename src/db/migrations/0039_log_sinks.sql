CREATE TABLE `log_sinks` (
	`name` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`settings` text NOT NULL,
	`sealed_secrets` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
