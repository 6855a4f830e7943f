CREATE TABLE `log_sink_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`after_seq` integer NOT NULL,
	`last_row_at` integer,
	`last_delivered_at` integer,
	`delivered_rows` integer DEFAULT 0 NOT NULL,
	`delivered_batches` integer DEFAULT 0 NOT NULL,
	`failed_attempts` integer DEFAULT 0 NOT NULL,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_failure_at` integer,
	`created_at` integer NOT NULL
);
