CREATE TABLE `governance_video_charges` (
	`provider` text NOT NULL,
	`video_id` text NOT NULL,
	`charges` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `video_id`)
);
--> statement-breakpoint
CREATE INDEX `governance_video_charges_created_idx` ON `governance_video_charges` (`created_at`);