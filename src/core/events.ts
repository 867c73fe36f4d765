import { z } from "zod";

/** What a tenant's event endpoints can subscribe to. Names are public contract: add, never rename. */
export const EVENT_TYPES = [
  "lesson.created",
  "lesson.quarantined",
  "run.completed",
  "run.promoted",
  "budget.exhausted",
  "lesson.held",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EventSchema = z.object({
  /**
   * Unique per happening, and the same when the same happening is reported again (a retried sync,
   * a redelivered message): deliveries are keyed by (event id, endpoint), so it is sent once.
   */
  id: z.string().min(1).max(200),
  type: z.enum(EVENT_TYPES),
  tenantId: z.string().min(1),
  occurredAt: z.number().int(),
  data: z.record(z.string(), z.unknown()),
});
export type PraxisEvent = z.infer<typeof EventSchema>;

/** Events one `event.emit` message carries: a library import of a thousand lessons is twenty messages, not a thousand. */
export const MAX_EVENTS_PER_MESSAGE = 50;

/**
 * The queue messages that hand a tenant's events to the fan-out (src/platform/events/delivery.ts), at most
 * MAX_EVENTS_PER_MESSAGE each; Durable Objects send them themselves.
 */
export function eventMessages(tenantId: string, events: readonly PraxisEvent[]) {
  const out = [];
  for (let i = 0; i < events.length; i += MAX_EVENTS_PER_MESSAGE) {
    out.push({ type: "event.emit" as const, tenantId, events: events.slice(i, i + MAX_EVENTS_PER_MESSAGE) });
  }
  return out;
}

/** At most this many endpoints per tenant, so one event fans out to a bounded number of deliveries. */
export const MAX_ENDPOINTS_PER_TENANT = 10;
/** The attempts a delivery's log keeps (the queue tries QUEUE_MAX_RETRIES + 1 times; leases may add some). */
export const MAX_LOGGED_ATTEMPTS = 10;
