CREATE TABLE `actor_signals` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`signal` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `actor_signals_kind_idx` ON `actor_signals` (`kind`);