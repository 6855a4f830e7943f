CREATE TABLE `prompt_labels` (
	`prompt` text NOT NULL,
	`label` text NOT NULL,
	`version` integer NOT NULL,
	`moved_by` text NOT NULL,
	`moved_at` integer NOT NULL,
	PRIMARY KEY(`prompt`, `label`)
);
--> statement-breakpoint
CREATE TABLE `prompt_versions` (
	`prompt` text NOT NULL,
	`version` integer NOT NULL,
	`template` text NOT NULL,
	`commit_message` text NOT NULL,
	`author` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`prompt`, `version`)
);
--> statement-breakpoint
CREATE TABLE `prompts` (
	`name` text PRIMARY KEY NOT NULL,
	`folder` text NOT NULL,
	`description` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
