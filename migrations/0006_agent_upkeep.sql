-- Agents sweep themselves from their Durable Object's alarm, set only when something falls due, so
-- the cron calls no agent. Agents created before that have no alarm yet: the cron asks each for one
-- sweep through the queue (which sets its alarm) and marks it. New agents start marked.
ALTER TABLE `agents` ADD `upkeep_armed` integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
UPDATE `agents` SET `upkeep_armed` = 0;
--> statement-breakpoint
CREATE INDEX `agents_upkeep_legacy` ON `agents` (`tenant_id`, `agent_id`) WHERE `upkeep_armed` = 0;
