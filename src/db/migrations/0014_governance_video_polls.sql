ALTER TABLE `governance_video_charges` ADD `poll` text;--> statement-breakpoint
ALTER TABLE `governance_video_charges` ADD `checked_at` integer;