CREATE TABLE `stored_responses` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text,
	`input` text NOT NULL,
	`response` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `stored_responses_expiry_idx` ON `stored_responses` (`expires_at`);