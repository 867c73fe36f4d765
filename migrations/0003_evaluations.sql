CREATE TABLE `evaluation_comparisons` (
	`comparison_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`dataset_id` text NOT NULL,
	`evaluation_a` text NOT NULL,
	`evaluation_b` text NOT NULL,
	`config` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `evaluation_comparisons_agent_idx` ON `evaluation_comparisons` (`tenant_id`,`agent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `evaluations` (
	`evaluation_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`dataset_id` text NOT NULL,
	`status` text NOT NULL,
	`config` text NOT NULL,
	`summary` text,
	`error` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `evaluations_agent_idx` ON `evaluations` (`tenant_id`,`agent_id`,`created_at`);