CREATE TABLE `a2a_agents` (
	`name` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`enabled` integer NOT NULL,
	`sealed_headers` text NOT NULL,
	`agent_card` text,
	`card_fetched_at` integer,
	`card_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `a2a_tasks` (
	`agent_name` text NOT NULL,
	`task_id` text NOT NULL,
	`context_id` text,
	`state` text NOT NULL,
	`live` integer NOT NULL,
	`virtual_key_id` text,
	`status` text NOT NULL,
	`transitions` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`agent_name`, `task_id`)
);
--> statement-breakpoint
CREATE INDEX `a2a_tasks_live_idx` ON `a2a_tasks` (`live`,`updated_at`);--> statement-breakpoint
CREATE INDEX `a2a_tasks_agent_idx` ON `a2a_tasks` (`agent_name`,`updated_at`);