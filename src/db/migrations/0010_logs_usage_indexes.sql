DROP INDEX `request_logs_timestamp_idx`;--> statement-breakpoint
DROP INDEX `request_logs_model_idx`;--> statement-breakpoint
CREATE INDEX `request_logs_time_usage_idx` ON `request_logs` (`timestamp`,`status`,`provider`,`model`,`input_tokens`,`output_tokens`,`cached_tokens`,`reasoning_tokens`,`total_tokens`,`cost`,`latency_ms`);--> statement-breakpoint
CREATE INDEX `request_logs_model_usage_idx` ON `request_logs` (`model`,`timestamp`,`provider`,`status`,`input_tokens`,`output_tokens`,`cached_tokens`,`reasoning_tokens`,`total_tokens`,`cost`,`latency_ms`);