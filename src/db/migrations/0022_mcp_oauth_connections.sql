CREATE TABLE `mcp_oauth_connections` (
	`mcp_client_id` text NOT NULL,
	`owner_mode` text NOT NULL,
	`owner_identity` text NOT NULL,
	`state` text NOT NULL,
	`sealed_grant` text NOT NULL,
	`pending_state_hash` text,
	`access_expires_at` integer,
	`last_error` text,
	`connected_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`mcp_client_id`, `owner_mode`, `owner_identity`),
	FOREIGN KEY (`mcp_client_id`) REFERENCES `mcp_clients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_oauth_connections_pending_state_idx` ON `mcp_oauth_connections` (`pending_state_hash`);