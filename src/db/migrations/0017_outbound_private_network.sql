ALTER TABLE `providers` ADD `private_network_allowed` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `mcp_clients` ADD `private_network_allowed` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `a2a_agents` ADD `private_network_allowed` integer DEFAULT true NOT NULL;