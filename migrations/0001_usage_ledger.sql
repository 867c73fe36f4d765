CREATE TABLE `usage_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` text NOT NULL,
	`agent_id` text,
	`purpose` text NOT NULL,
	`role` text NOT NULL,
	`model` text NOT NULL,
	`tokens_in` integer NOT NULL,
	`tokens_out` integer NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	`at` integer NOT NULL,
	`day` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `usage_ledger_tenant_at_idx` ON `usage_ledger` (`tenant_id`,`at`);