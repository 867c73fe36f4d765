-- The per-tenant running daily token total, so the budget check reads one row instead of summing
-- the day's ledger. Seeded from the ledger once; the ledger writes keep it current.
CREATE TABLE `tenant_daily_usage` (
	`tenant_id` text NOT NULL,
	`day` text NOT NULL,
	`tokens` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `day`)
);
--> statement-breakpoint
INSERT INTO `tenant_daily_usage` (`tenant_id`, `day`, `tokens`)
SELECT `tenant_id`, `day`, SUM(`tokens_in` + `tokens_out`) FROM `usage_ledger` GROUP BY `tenant_id`, `day`;
