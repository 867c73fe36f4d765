-- Open usage rows are found by the sweep that marks the ones past their call's timeout abandoned;
-- the partial index holds only the open rows (the calls in flight), so the sweep reads no others.
CREATE INDEX `usage_ledger_open_idx` ON `usage_ledger` (`at`) WHERE `state` = 'open';
