import { and, desc, eq } from "drizzle-orm";
import type { Env } from "../../env";
import type { Logger } from "../../core/logger";
import { db } from "../../db/client";
import { eventDeliveries, eventEndpoints, practiceRuns, type DeliveryAttempt } from "../../db/schema";
import { eventMessages, MAX_LOGGED_ATTEMPTS, type EventType, type PraxisEvent } from "../../core/events";
import { checkWebhookUrl, webhookUrlModeOf } from "../../core/webhook-url";
import type { RunRowFields } from "../../core/practice/ports";
import { signedPost, WebhookError } from "../../practice/signed-post";
import { QUEUE_MAX_RETRIES, type JobMessage } from "../../core/job-messages";
import { tenantWebhookSecret } from "../records/tenant-secrets";
import { d1Read, d1Write } from "../objects/binding-faults";
import { variables } from "../../config";
import { currentTraceparent } from "../../trace";

/**
 * Outbound event webhooks. An event goes on the jobs queue (`event.emit`, sent by whoever saw it
 * happen, Durable Objects included); its fan-out stores one delivery per subscribed endpoint, keyed
 * by (event id, endpoint) so a repeated event adds none, and queues `event.deliver` for each. A
 * delivery is claimed with a lease before it is sent, so a redelivered message finds it taken or
 * done and sends nothing; failures the receiver may recover from (5xx, 408, 429, network) are
 * retried by the queue with its backoff, and every attempt lands in the delivery's log.
 */

export const EVENT_ID_HEADER = "X-Praxis-Event-Id";
export const EVENT_TYPE_HEADER = "X-Praxis-Event-Type";
/** A delivery's whole exchange is bounded by this; the lease outlasts it. */
const DELIVERY_TIMEOUT_MS = 10_000;
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;

type EndpointRow = typeof eventEndpoints.$inferSelect;
type DeliveryRow = typeof eventDeliveries.$inferSelect;

/** An endpoint as its tenant's admins see it (src/use-cases/events.ts) and the fan-out reads it. */
export const presentEndpoint = (e: EndpointRow) => ({
  id: e.id,
  url: e.url,
  events: e.eventTypes as EventType[],
  description: e.description ?? null,
  createdAt: e.createdAt,
});

/** Queues an event for fan-out. A Durable Object sends the same message itself (core/events.ts). */
export async function emitEvent(env: Env, event: PraxisEvent): Promise<void> {
  for (const m of eventMessages(event.tenantId, [event])) await env.JOBS.send(m);
}

/** The tenant's endpoints, newest first. */
export async function listEndpoints(env: Env, tenantId: string) {
  const rows = await d1Read(() =>
    db(env).select().from(eventEndpoints).where(eq(eventEndpoints.tenantId, tenantId)).orderBy(desc(eventEndpoints.createdAt)).all(),
  );
  return rows.map(presentEndpoint);
}

/** The delivery id of an event at an endpoint: the same however often the event is fanned out. */
async function deliveryId(eventId: string, endpointId: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${eventId}\n${endpointId}`)));
  return `wd_${[...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** `event.emit`: one delivery per event and endpoint subscribed to its type, each queued once it is stored. */
export async function fanOut(env: Env, msg: Extract<JobMessage, { type: "event.emit" }>) {
  const endpoints = await listEndpoints(env, msg.tenantId);
  const pairs = msg.events.flatMap((event) =>
    endpoints.filter((e) => e.events.includes(event.type)).map((endpoint) => ({ event, endpoint })),
  );
  if (pairs.length === 0) return { deliveries: 0 };
  const ids = await Promise.all(pairs.map((p) => deliveryId(p.event.id, p.endpoint.id)));
  await d1Write(() =>
    env.DB.batch(
      pairs.map(({ event, endpoint }, i) =>
        env.DB.prepare(
          `INSERT INTO event_deliveries (id, tenant_id, endpoint_id, event_id, event_type, payload, traceparent, status)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending') ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
        ).bind(
          ids[i]!,
          msg.tenantId,
          endpoint.id,
          event.id,
          event.type,
          JSON.stringify({ id: event.id, type: event.type, tenantId: event.tenantId, occurredAt: event.occurredAt, data: event.data }),
          msg.traceparent ?? null,
        ),
      ),
    ),
  );
  // Queued again on a redelivered emit too: a delivery already done or under way is then a no-op.
  // sendBatch takes at most 100 messages.
  for (let i = 0; i < ids.length; i += 100) {
    await env.JOBS.sendBatch(
      ids.slice(i, i + 100).map((id) => ({ body: { type: "event.deliver" as const, tenantId: msg.tenantId, deliveryId: id } })),
    );
  }
  return { deliveries: ids.length };
}

/** Takes the delivery for one attempt: pending, retrying, or sending under a lease that ran out. */
async function claim(env: Env, tenantId: string, id: string, now: number): Promise<DeliveryRow | "done" | "leased" | "gone"> {
  const claimed = await d1Write(() =>
    env.DB.prepare(
      `UPDATE event_deliveries SET status = 'sending', lease_until = ?3, attempts = attempts + 1, updated_at = ?4
        WHERE id = ?1 AND tenant_id = ?2 AND (status IN ('pending', 'retrying') OR (status = 'sending' AND lease_until < ?4))
        RETURNING id`,
    )
      .bind(id, tenantId, now + LEASE_MS, now)
      .first<{ id: string }>(),
  );
  const row = await d1Read(() =>
    db(env)
      .select()
      .from(eventDeliveries)
      .where(and(eq(eventDeliveries.id, id), eq(eventDeliveries.tenantId, tenantId)))
      .get(),
  );
  if (!row) return "gone";
  if (claimed) return row;
  return row.status === "sending" ? "leased" : "done";
}

async function settle(env: Env, row: DeliveryRow, status: "delivered" | "retrying" | "failed", attempt: DeliveryAttempt) {
  const log = [...row.attemptLog, attempt].slice(-MAX_LOGGED_ATTEMPTS);
  await d1Write(() =>
    db(env)
      .update(eventDeliveries)
      .set({
        status,
        attemptLog: log,
        leaseUntil: null,
        updatedAt: attempt.at,
        ...(status === "delivered" ? { deliveredAt: attempt.at } : {}),
      })
      .where(and(eq(eventDeliveries.id, row.id), eq(eventDeliveries.status, "sending")))
      .run(),
  );
}

/**
 * `event.deliver`: one signed POST of the event to its endpoint. The URL is checked again against
 * the deployment's rules (they may have changed since it was stored). A failure the receiver may
 * recover from throws, so the queue retries with its backoff, until the last delivery the queue
 * makes; a failure no retry can mend (a 4xx, a refused URL, a removed endpoint or secret) is final.
 */
export async function deliverEvent(
  env: Env,
  msg: Extract<JobMessage, { type: "event.deliver" }>,
  log: Logger,
  delivery: { attempts: number },
) {
  const now = Date.now();
  const row = await claim(env, msg.tenantId, msg.deliveryId, now);
  if (row === "gone" || row === "done") return { skipped: row };
  if (row === "leased") {
    // Another consumer holds it (a duplicate message): look again once its lease is over, in case it died.
    await env.JOBS.send(msg, { delaySeconds: Math.ceil(LEASE_MS / 1000) });
    return { skipped: "leased" };
  }
  const endpoint = await d1Read(() =>
    db(env)
      .select()
      .from(eventEndpoints)
      .where(and(eq(eventEndpoints.id, row.endpointId), eq(eventEndpoints.tenantId, msg.tenantId)))
      .get(),
  );
  const secret = endpoint ? await tenantWebhookSecret(env, msg.tenantId) : null;
  const refused = !endpoint
    ? "the endpoint was deleted"
    : !secret
      ? "the tenant has no webhook secret"
      : checkWebhookUrl(endpoint.url, webhookUrlModeOf(variables(env).PRAXIS_ENV));
  if (refused || !endpoint || !secret) {
    const error = endpoint && secret ? `The URL ${refused}` : `not sent: ${refused}`;
    await settle(env, row, "failed", { at: now, error });
    return { status: "failed", error };
  }
  // The delivering job's span, a child of the emitter's: the receiver joins the same trace.
  const traceparent = currentTraceparent() ?? row.traceparent;
  try {
    const sent = await signedPost({
      url: endpoint.url,
      body: JSON.parse(row.payload),
      secret,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      headers: { [EVENT_ID_HEADER]: row.eventId, [EVENT_TYPE_HEADER]: row.eventType, ...(traceparent ? { traceparent } : {}) },
    }).catch((e: unknown) => {
      // A receiver that took the event but answered with something other than JSON has still taken it.
      if (e instanceof WebhookError && e.kind === "invalid-json" && e.status !== undefined) return { status: e.status };
      throw e;
    });
    await settle(env, row, "delivered", { at: Date.now(), status: sent.status });
    return { status: "delivered" };
  } catch (e) {
    const err = e instanceof WebhookError ? e : new WebhookError("network", String(e));
    const final = !err.retryable || delivery.attempts > QUEUE_MAX_RETRIES;
    await settle(env, row, final ? "failed" : "retrying", {
      at: Date.now(),
      ...(err.status !== undefined ? { status: err.status } : {}),
      error: err.message.slice(0, 500),
    });
    log.warn("event delivery failed", { deliveryId: row.id, eventId: row.eventId, attempts: delivery.attempts, final, err: err.message });
    if (final) return { status: "failed" };
    throw err;
  }
}

/** How long the delivery log keeps a delivery that has settled. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

/** Settled deliveries past DELIVERY_RETENTION_MS leave the log, a bounded number per run of the daily cron. */
export async function pruneDeliveries(env: Env, at: number, limit = 5_000): Promise<number> {
  const res = await env.DB.prepare(
    `DELETE FROM event_deliveries WHERE id IN (
       SELECT id FROM event_deliveries WHERE created_at < ?1 AND status IN ('delivered', 'failed') ORDER BY created_at LIMIT ?2)`,
  )
    .bind(at - DELIVERY_RETENTION_MS, limit)
    .run();
  return res.meta.changes ?? 0;
}

/** Events of a practice run whose status just reached D1: `run.completed`, and `run.promoted` when its library was promoted. */
export async function emitRunEvents(env: Env, runId: string, fields: RunRowFields): Promise<void> {
  if (fields.status !== "completed") return;
  const run = await db(env)
    .select({ tenantId: practiceRuns.tenantId, agentId: practiceRuns.agentId })
    .from(practiceRuns)
    .where(eq(practiceRuns.runId, runId))
    .get();
  if (!run) return;
  const at = Date.now();
  const promotion = (fields.summary.promotion ?? null) as {
    promoted?: boolean;
    version?: number | null;
    epoch?: number | null;
    reason?: string;
  } | null;
  const data = { agentId: run.agentId, runId, status: fields.status, promotion };
  await emitEvent(env, { id: `run.completed:${runId}`, type: "run.completed", tenantId: run.tenantId, occurredAt: at, data });
  if (promotion?.promoted) {
    await emitEvent(env, {
      id: `run.promoted:${runId}`,
      type: "run.promoted",
      tenantId: run.tenantId,
      occurredAt: at,
      data: { agentId: run.agentId, runId, version: promotion.version ?? null, epoch: promotion.epoch ?? null },
    });
  }
}
