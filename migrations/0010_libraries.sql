-- Shared libraries (issue 32): a tenant's lessons that several agents draw on. The lessons live in
-- an AgentMemory object of their own (`${tenant_id}:library:${library_id}`); D1 holds the library's
-- name and who subscribes to it, so a library's owners can list subscribers and a deleted library
-- can be taken away from them. Each subscriber's object keeps its own copy of its subscriptions,
-- so a read never asks D1.
CREATE TABLE `libraries` (
	`tenant_id` text NOT NULL,
	`library_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`tenant_id`, `library_id`),
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE INDEX `libraries_tenant_created_idx` ON `libraries` (`tenant_id`,`created_at`);

CREATE TABLE `library_subscriptions` (
	`tenant_id` text NOT NULL,
	`library_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`weight` real DEFAULT 1 NOT NULL,
	`pin_version` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`tenant_id`, `library_id`, `agent_id`),
	FOREIGN KEY (`tenant_id`, `library_id`) REFERENCES `libraries`(`tenant_id`, `library_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`, `agent_id`) REFERENCES `agents`(`tenant_id`, `agent_id`) ON UPDATE no action ON DELETE cascade
);
CREATE INDEX `library_subscriptions_agent_idx` ON `library_subscriptions` (`tenant_id`,`agent_id`);

-- The versions of a library some subscription pinned; each has a frozen copy of the library as it
-- stood after that version (`${tenant_id}:library:${library_id}@${version}`), deleted with the library.
CREATE TABLE `library_pins` (
	`tenant_id` text NOT NULL,
	`library_id` text NOT NULL,
	`version` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`tenant_id`, `library_id`, `version`),
	FOREIGN KEY (`tenant_id`, `library_id`) REFERENCES `libraries`(`tenant_id`, `library_id`) ON UPDATE no action ON DELETE cascade
);

-- A key may be limited to some libraries as it may be to some agents (null: every library).
ALTER TABLE `api_keys` ADD COLUMN `library_ids` text;
