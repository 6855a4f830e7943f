ALTER TABLE `actor_snapshots` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `actor_snapshots` ADD `lease_until` integer;