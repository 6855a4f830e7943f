DROP INDEX `request_logs_provider_idx`;--> statement-breakpoint
DROP INDEX `request_logs_status_idx`;--> statement-breakpoint
DROP INDEX `request_logs_parent_idx`;--> statement-breakpoint
DROP INDEX `request_logs_session_idx`;--> statement-breakpoint
CREATE INDEX `request_logs_parent_idx` ON `request_logs` (`parent_request_id`) WHERE "request_logs"."parent_request_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `request_logs_session_idx` ON `request_logs` (`session_id`) WHERE "request_logs"."session_id" IS NOT NULL;