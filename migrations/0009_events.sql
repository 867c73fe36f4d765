-- Outbound event webhooks (src/services/events.ts): a tenant's endpoints, and one delivery per
-- (event, endpoint), so an event reported twice or a redelivered message is sent once.
CREATE TABLE `event_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`url` text NOT NULL,
	`event_types` text NOT NULL,
	`description` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE INDEX `event_endpoints_tenant_idx` ON `event_endpoints` (`tenant_id`,`created_at`);

CREATE TABLE `event_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`traceparent` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`attempt_log` text DEFAULT '[]' NOT NULL,
	`lease_until` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`delivered_at` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
CREATE UNIQUE INDEX `event_deliveries_event_endpoint_uq` ON `event_deliveries` (`event_id`,`endpoint_id`);
CREATE INDEX `event_deliveries_tenant_idx` ON `event_deliveries` (`tenant_id`,`created_at`);
-- The daily cron prunes settled deliveries by age (src/services/events.ts, pruneDeliveries).
CREATE INDEX `event_deliveries_created_idx` ON `event_deliveries` (`created_at`);
