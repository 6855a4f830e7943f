CREATE TABLE `conversation_items` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_id` text NOT NULL,
	`item_id` text NOT NULL,
	`item` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `conversation_items_conversation_idx` ON `conversation_items` (`conversation_id`,`seq`);--> statement-breakpoint
CREATE INDEX `conversation_items_item_idx` ON `conversation_items` (`conversation_id`,`item_id`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text,
	`metadata` text NOT NULL,
	`created_at` integer NOT NULL
);
