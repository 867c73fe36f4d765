import { z } from "zod";

/** What a tenant's event endpoints can subscribe to. Names are public contract: add, never rename. */
export const EVENT_TYPES = ["lesson.created", "lesson.quarantined", "run.completed", "run.promoted", "budget.exhausted"] as const;
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

/** The queue message that hands an event to the fan-out (src/services/events.ts); Durable Objects send it themselves. */
export function eventMessage(event: PraxisEvent, traceparent?: string) {
  return { type: "event.emit" as const, tenantId: event.tenantId, event, ...(traceparent ? { traceparent } : {}) };
}

/** At most this many endpoints per tenant, so one event fans out to a bounded number of deliveries. */
export const MAX_ENDPOINTS_PER_TENANT = 10;
/** The attempts a delivery's log keeps (the queue tries QUEUE_MAX_RETRIES + 1 times; leases may add some). */
export const MAX_LOGGED_ATTEMPTS = 10;
