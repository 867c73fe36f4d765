import { and, desc, eq } from "drizzle-orm";
import { db } from "../db/client";
import { eventDeliveries, eventEndpoints } from "../db/schema";
import { MAX_ENDPOINTS_PER_TENANT, type EventType } from "../core/events";
import { cursorField, pageOf } from "../core/cursor";
import { olderThan } from "../db/keyset";
import { conflict, notFound, outcome } from "../core/errors";
import { requireSystem, requireTenantAdmin } from "../core/principal";
import type { JobMessage } from "../core/job-messages";
import type { Logger } from "../core/logger";
import { tenantWebhookSecret } from "../platform/records/tenant-secrets";
import type { Caller, Deps } from "../platform/deps";
import { recordAudit } from "../platform/records/audit";
import { assertCallableUrls } from "../platform/checks/callable-urls";
import { d1Read, d1Write } from "../platform/objects/binding-faults";
import { deliverEvent, fanOut, listEndpoints, presentEndpoint, pruneDeliveries } from "../platform/events/delivery";

/** A tenant's event endpoints and its delivery log, as its admins manage them; sending is src/platform/events/delivery.ts. */
type DeliveryRow = typeof eventDeliveries.$inferSelect;

const presentDelivery = (d: DeliveryRow) => ({
  id: d.id,
  endpointId: d.endpointId,
  eventId: d.eventId,
  eventType: d.eventType as EventType,
  status: d.status,
  attempts: d.attempts,
  attemptLog: d.attemptLog,
  createdAt: d.createdAt,
  deliveredAt: d.deliveredAt ?? null,
});

/** Subscribes a URL of the tenant's to events; deliveries are signed with the tenant's webhook secret. */
export const createEventEndpoint = (deps: Deps, caller: Caller, body: { url: string; events: EventType[]; description?: string }) =>
  outcome(async () => {
    const { tenantId } = requireTenantAdmin(caller);
    assertCallableUrls(deps.env, [{ path: "url", url: body.url }]);
    // Without a webhook secret there is nothing to sign deliveries with.
    if (!(await tenantWebhookSecret(deps.env, tenantId)))
      throw conflict("Create the tenant's webhook secret first (POST /v1/webhook-secret): event deliveries are signed with it.");
    const row = {
      id: `we_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`,
      tenantId,
      url: body.url,
      eventTypes: [...new Set(body.events)],
      description: body.description ?? null,
    };
    // The count and the insert are one statement, so concurrent registrations cannot pass the bound together.
    const inserted = await d1Write(() =>
      deps.env.DB.prepare(
        `INSERT INTO event_endpoints (id, tenant_id, url, event_types, description)
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE (SELECT count(*) FROM event_endpoints WHERE tenant_id = ?2) < ?6
         RETURNING created_at AS createdAt`,
      )
        .bind(row.id, tenantId, row.url, JSON.stringify(row.eventTypes), row.description, MAX_ENDPOINTS_PER_TENANT)
        .first<{ createdAt: number }>(),
    );
    if (!inserted) throw conflict(`A tenant has at most ${MAX_ENDPOINTS_PER_TENANT} event endpoints; delete one first.`);
    const endpoint = presentEndpoint({ ...row, createdAt: inserted.createdAt });
    await recordAudit(deps, caller, {
      tenantId,
      action: "event-endpoint.create",
      target: endpoint.id,
      detail: { events: endpoint.events },
    });
    return endpoint;
  });

export const listEventEndpoints = (deps: Deps, caller: Caller) =>
  outcome(async () => ({ items: await listEndpoints(deps.env, requireTenantAdmin(caller).tenantId) }));

/** Removes an endpoint; its pending deliveries then fail at their next attempt, and its log stays. */
export const deleteEventEndpoint = (deps: Deps, caller: Caller, { endpointId }: { endpointId: string }) =>
  outcome(async () => {
    const { tenantId } = requireTenantAdmin(caller);
    const gone = await d1Write(() =>
      db(deps.env)
        .delete(eventEndpoints)
        .where(and(eq(eventEndpoints.id, endpointId), eq(eventEndpoints.tenantId, tenantId)))
        .returning({ id: eventEndpoints.id })
        .all(),
    );
    if (gone.length === 0) throw notFound(`Event endpoint '${endpointId}' does not exist.`);
    await recordAudit(deps, caller, { tenantId, action: "event-endpoint.delete", target: endpointId });
  });

/** The tenant's deliveries, newest first, optionally of one endpoint or event. */
export const listEventDeliveries = (
  deps: Deps,
  caller: Caller,
  opts: { limit: number; cursor?: string; endpointId?: string; eventId?: string },
) =>
  outcome(async () => {
    const { tenantId } = requireTenantAdmin(caller);
    const after = cursorField(opts.cursor, { t: "number", i: "string" });
    const rows = await d1Read(() =>
      db(deps.env)
        .select()
        .from(eventDeliveries)
        .where(
          and(
            eq(eventDeliveries.tenantId, tenantId),
            opts.endpointId ? eq(eventDeliveries.endpointId, opts.endpointId) : undefined,
            opts.eventId ? eq(eventDeliveries.eventId, opts.eventId) : undefined,
            olderThan(eventDeliveries.createdAt, eventDeliveries.id, after ? { createdAt: after.t, id: after.i } : undefined),
          ),
        )
        .orderBy(desc(eventDeliveries.createdAt), desc(eventDeliveries.id))
        .limit(opts.limit + 1)
        .all(),
    );
    const page = pageOf(rows, opts.limit, (last) => ({ t: last.createdAt, i: last.id }));
    return { items: page.items.map(presentDelivery), nextCursor: page.nextCursor };
  });

/** `event.emit` from the jobs queue: one delivery per event and endpoint subscribed to its type. */
export const fanOutEvents = (deps: Pick<Deps, "env">, caller: Caller, msg: Extract<JobMessage, { type: "event.emit" }>) =>
  outcome(async () => {
    requireSystem(caller);
    return fanOut(deps.env, msg);
  });

/** `event.deliver` from the jobs queue: one signed POST; a failure the receiver may recover from throws, for the queue to retry. */
export const deliverQueuedEvent = (
  deps: Pick<Deps, "env">,
  caller: Caller,
  input: { msg: Extract<JobMessage, { type: "event.deliver" }>; log: Logger; attempts: number },
) =>
  outcome(async () => {
    requireSystem(caller);
    return deliverEvent(deps.env, input.msg, input.log, { attempts: input.attempts });
  });

/** The daily cron's part: deliveries past their retention are deleted. */
export const pruneEventDeliveries = (deps: Pick<Deps, "env">, caller: Caller, input: { at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return pruneDeliveries(deps.env, input.at);
  });
