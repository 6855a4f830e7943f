CREATE TABLE `oidc_identities` (
	`provider` text NOT NULL,
	`subject` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_sign_in_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `subject`),
	FOREIGN KEY (`user_id`) REFERENCES `rbac_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_identities_user_id_unique` ON `oidc_identities` (`user_id`);--> statement-breakpoint
ALTER TABLE `management_api_keys` ADD `owner_user_id` text;