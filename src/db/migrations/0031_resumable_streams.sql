CREATE TABLE `resumable_stream_events` (
	`stream_id` text NOT NULL,
	`seq` integer NOT NULL,
	`event` text NOT NULL,
	PRIMARY KEY(`stream_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `resumable_streams` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text,
	`request_id` text NOT NULL,
	`operation` text NOT NULL,
	`format` text NOT NULL,
	`content_type` text NOT NULL,
	`state` text NOT NULL,
	`error` text,
	`events` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`resumes` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`ended_at` integer
);
--> statement-breakpoint
CREATE INDEX `resumable_streams_created_idx` ON `resumable_streams` (`created_at`);--> statement-breakpoint
ALTER TABLE `governance_virtual_keys` ADD `resumable_streams` integer DEFAULT false NOT NULL;