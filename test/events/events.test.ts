import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, expectProblem, newKey, newTenant, uniq } from "../helpers";
import { DELIVERY_RETENTION_MS, emitEvent, pruneDeliveries } from "../../src/platform/events/delivery";
import { captureJobs, RECEIVER, receiver, subscribed } from "./harness";

afterEach(() => vi.restoreAllMocks());

const event = (tenantId: string, id = uniq("ev")) => ({
  id,
  type: "run.completed" as const,
  tenantId,
  occurredAt: Date.now(),
  data: { runId: "run_x" },
});

describe("event endpoints", () => {
  it("registration needs an unrestricted admin, a webhook secret, a callable URL and known event types", async () => {
    const t = await newTenant();
    const body = { url: RECEIVER, events: ["run.completed"] };
    expectProblem(await call("POST", "/v1/events/endpoints", { key: t.apiKey, body }), 409);
    await call("POST", "/v1/webhook-secret", { key: t.apiKey });
    const writer = await newKey(t.apiKey, "write");
    expectProblem(await call("POST", "/v1/events/endpoints", { key: writer.apiKey, body }), 403);
    expectProblem(
      await call("POST", "/v1/events/endpoints", { key: t.apiKey, body: { ...body, url: "http://169.254.169.254/latest" } }),
      422,
    );
    expectProblem(await call("POST", "/v1/events/endpoints", { key: t.apiKey, body: { ...body, events: ["lesson.eaten"] } }), 400);
    expect((await call("GET", "/v1/events/endpoints", { key: t.apiKey })).body.items).toEqual([]);

    const made = await call("POST", "/v1/events/endpoints", {
      key: t.apiKey,
      body: { ...body, events: ["run.completed", "run.completed", "lesson.created"] },
    });
    expect(made.status).toBe(201);
    expect(made.body.events).toEqual(["run.completed", "lesson.created"]);
    const other = await newTenant();
    expectProblem(await call("DELETE", `/v1/events/endpoints/${made.body.id}`, { key: other.apiKey }), 404);
    expect((await call("DELETE", `/v1/events/endpoints/${made.body.id}`, { key: t.apiKey })).status).toBe(204);
    expect((await call("GET", "/v1/events/endpoints", { key: t.apiKey })).body.items).toEqual([]);
  });
});

describe("event delivery through the queue", () => {
  it("is signed so the receiver verifies it with the tenant's secret, and carries the event's id and type", async () => {
    const t = await newTenant();
    const q = captureJobs();
    let secret = "";
    const got = receiver(() => secret);
    ({ secret } = await subscribed(t, ["run.completed"]));
    const ev = event(t.tenantId);
    await emitEvent(env, ev);
    await q.pump();
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.headers.get("x-praxis-event-id")).toBe(ev.id);
    expect(got[0]!.headers.get("x-praxis-event-type")).toBe("run.completed");
    expect(got[0]!.body).toEqual({
      id: ev.id,
      type: "run.completed",
      tenantId: t.tenantId,
      occurredAt: ev.occurredAt,
      data: { runId: "run_x" },
    });
    const log = await call("GET", "/v1/events/deliveries", { key: t.apiKey });
    expect(log.body.items).toHaveLength(1);
    expect(log.body.items[0]).toMatchObject({ eventId: ev.id, status: "delivered", attempts: 1, attemptLog: [{ status: 200 }] });
  });

  it("an event type the endpoint did not choose is not sent", async () => {
    const t = await newTenant();
    const q = captureJobs();
    const got = receiver(() => "");
    await subscribed(t, ["lesson.created"]);
    await emitEvent(env, event(t.tenantId));
    await q.pump();
    expect(got).toHaveLength(0);
    expect((await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items).toEqual([]);
  });

  it("a 500 from the receiver is retried by the queue; the log shows both attempts", async () => {
    const t = await newTenant();
    const q = captureJobs();
    let secret = "";
    const got = receiver(
      () => secret,
      (n) => (n === 1 ? 500 : 204),
    );
    ({ secret } = await subscribed(t, ["run.completed"]));
    await emitEvent(env, event(t.tenantId));
    await q.pump();
    expect(got).toHaveLength(2);
    expect(got.every((g) => g.verified)).toBe(true);
    expect(got[1]!.headers.get("x-praxis-event-id")).toBe(got[0]!.headers.get("x-praxis-event-id"));
    const [d] = (await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items;
    expect(d).toMatchObject({ status: "delivered", attempts: 2 });
    expect(d.attemptLog.map((a: any) => a.status)).toEqual([500, 204]);
    expect(d.attemptLog[0].error).toContain("500");
  });

  it("a 4xx is final, and a receiver that keeps failing ends `failed` after the queue's retries", async () => {
    const t = await newTenant();
    const q = captureJobs();
    let status = 400;
    receiver(
      () => "",
      () => status,
    );
    await subscribed(t, ["run.completed"]);
    await emitEvent(env, event(t.tenantId));
    await q.pump();
    let [d] = (await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items;
    expect(d).toMatchObject({ status: "failed", attempts: 1 });

    status = 503;
    await emitEvent(env, event(t.tenantId));
    await q.pump();
    [d] = (await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items;
    expect(d).toMatchObject({ status: "failed", attempts: 4 });
    expect(d.attemptLog.map((a: any) => a.status)).toEqual([503, 503, 503, 503]);
  });

  it("no duplicate delivery: a redelivered message, or the same event reported twice, is sent once", async () => {
    const t = await newTenant();
    const q = captureJobs();
    const got = receiver(() => "");
    await subscribed(t, ["run.completed"]);
    const ev = event(t.tenantId);
    await emitEvent(env, ev);
    await emitEvent(env, { ...ev, occurredAt: ev.occurredAt + 5 });
    await q.pump({ duplicate: true });
    expect(got).toHaveLength(1);
    const log = (await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("no duplicate delivery when two consumers take the same message at once: one claims it, the other finds it leased", async () => {
    const t = await newTenant();
    const q = captureJobs();
    // The receiver takes a few ms, so the second consumer arrives while the first is still sending.
    const got = receiver(
      () => "",
      () => 200,
      25,
    );
    await subscribed(t, ["run.completed"]);
    await emitEvent(env, event(t.tenantId));
    await q.pump();
    expect(got).toHaveLength(1);

    await emitEvent(env, event(t.tenantId));
    await q.deliverTwiceAtOnce();
    // The emit ran twice: its delivery is stored once, and queued by each run.
    expect(q.queued.filter((m) => m.body.type === "event.deliver")).toHaveLength(2);
    await q.deliverTwiceAtOnce();
    expect(got).toHaveLength(2);
    // The consumer that found the delivery leased looks again after the lease; by then it is done.
    const recheck = q.queued.filter((m) => m.body.type === "event.deliver");
    expect(recheck.length).toBeGreaterThan(0);
    await q.pump();
    expect(got).toHaveLength(2);
    const log = (await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items;
    expect(log.map((d: any) => [d.status, d.attempts])).toEqual([
      ["delivered", 1],
      ["delivered", 1],
    ]);
  });

  it("a URL the rules refuse at delivery time is not called, and the log says why", async () => {
    const t = await newTenant();
    const q = captureJobs();
    const got = receiver(() => "");
    const { endpointId } = await subscribed(t, ["run.completed"]);
    await env.DB.prepare("UPDATE event_endpoints SET url = 'http://169.254.169.254/latest' WHERE id = ?").bind(endpointId).run();
    await emitEvent(env, event(t.tenantId));
    await q.pump();
    expect(got).toHaveLength(0);
    const [d] = (await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items;
    expect(d.status).toBe("failed");
    expect(d.attemptLog[0].error).toContain("metadata");
  });

  it("the daily cron prunes settled deliveries past 30 days, and keeps the rest", async () => {
    const t = await newTenant();
    const q = captureJobs();
    receiver(() => "");
    await subscribed(t, ["run.completed"]);
    await emitEvent(env, event(t.tenantId));
    await emitEvent(env, event(t.tenantId));
    await q.pump();
    const [newer, older] = (await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items;
    const at = Date.now();
    await env.DB.prepare("UPDATE event_deliveries SET created_at = ? WHERE id = ?")
      .bind(at - DELIVERY_RETENTION_MS - 1, older.id)
      .run();
    expect(await pruneDeliveries(env, at)).toBeGreaterThanOrEqual(1);
    expect((await call("GET", "/v1/events/deliveries", { key: t.apiKey })).body.items.map((d: any) => d.id)).toEqual([newer.id]);
  });
});
