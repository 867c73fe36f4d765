-- Two-phase usage ledger: a call's row is written (state `open`, tokens at an estimate) before the
-- request goes out and settled with the provider's count after, so a call cut off by a crash is
-- still counted. Existing rows were written after their answer: settled.
ALTER TABLE `usage_ledger` ADD `state` text DEFAULT 'settled' NOT NULL;
--> statement-breakpoint
ALTER TABLE `usage_ledger` ADD `estimated` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `usage_ledger` ADD `call_id` text;
--> statement-breakpoint
ALTER TABLE `usage_ledger` ADD `settled_at` integer;
--> statement-breakpoint
CREATE UNIQUE INDEX `usage_ledger_call_id_idx` ON `usage_ledger` (`call_id`);
