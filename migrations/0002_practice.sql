CREATE TABLE `dataset_tasks` (
	`dataset_id` text NOT NULL,
	`task_id` text NOT NULL,
	`seq` integer NOT NULL,
	`task` text NOT NULL,
	`ground_truth` text,
	`metadata` text,
	`split` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`dataset_id`, `task_id`),
	FOREIGN KEY (`dataset_id`) REFERENCES `datasets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dataset_tasks_seq_uq` ON `dataset_tasks` (`dataset_id`,`seq`);--> statement-breakpoint
CREATE INDEX `dataset_tasks_split_idx` ON `dataset_tasks` (`dataset_id`,`split`,`seq`);--> statement-breakpoint
CREATE TABLE `datasets` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`holdout_fraction` real NOT NULL,
	`verifier` text,
	`task_seq` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `datasets_tenant_idx` ON `datasets` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `practice_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `practice_runs_agent_idx` ON `practice_runs` (`tenant_id`,`agent_id`,`created_at`);