-- Stored responses keep only what each turn added and link to the response they continued.
ALTER TABLE `stored_responses` ADD `previous_id` text;--> statement-breakpoint
CREATE INDEX `stored_responses_previous_idx` ON `stored_responses` (`previous_id`) WHERE "stored_responses"."previous_id" IS NOT NULL;