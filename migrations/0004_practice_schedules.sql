CREATE TABLE `practice_schedules` (
	`tenant_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`name` text NOT NULL,
	`every` text NOT NULL,
	`dataset_id` text NOT NULL,
	`run` text NOT NULL,
	`enabled` integer NOT NULL,
	`next_due` integer NOT NULL,
	`pending_due` integer,
	`pending_at` integer,
	`last_run` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`tenant_id`, `agent_id`, `name`),
	FOREIGN KEY (`tenant_id`,`agent_id`) REFERENCES `agents`(`tenant_id`,`agent_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `practice_schedules_due_idx` ON `practice_schedules` (`enabled`,`next_due`);--> statement-breakpoint
CREATE INDEX `practice_schedules_pending_idx` ON `practice_schedules` (`pending_due`);--> statement-breakpoint
CREATE TABLE `remedial_claims` (
	`tenant_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `agent_id`),
	FOREIGN KEY (`tenant_id`,`agent_id`) REFERENCES `agents`(`tenant_id`,`agent_id`) ON UPDATE no action ON DELETE cascade
);
