import { createScheduledController, env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CRON_FREQUENT, runScheduled } from "../../src/cron";
import { expectProblem } from "../helpers";
import { ARITHMETIC, captureQueues, practiceEnv, practiceFixture, practiceLlm, startRun } from "./harness";
import { LlmLedger } from "../../src/llm";

const HOUR = 3_600_000;
const T0 = Date.parse("2030-01-01T01:00:00.000Z");
const SIX = Date.parse("2030-01-01T06:00:00.000Z");
const RUN = { policy: { kind: "llm" }, epochs: 1, batchSize: 2, groupSize: 3, seed: 7 };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** One invocation of the frequent cron, at `at` (the clock is moved there first). */
async function cron(at: number) {
  vi.setSystemTime(at);
  return runScheduled(createScheduledController({ cron: CRON_FREQUENT, scheduledTime: at }), practiceEnv);
}

async function setup() {
  const f = await practiceFixture(ARITHMETIC);
  const q = captureQueues();
  practiceLlm();
  const runs = async () => (await f.agent("GET", "/practice-runs")).body.items as { runId: string; status: string }[];
  const schedule = async (name: string) => (await f.agent("GET", `/practice-schedules/${name}`)).body;
  const put = async (name: string, body: Record<string, unknown> = {}) => {
    const r = await f.agent("PUT", `/practice-schedules/${name}`, { every: "6h", datasetId: f.datasetId, run: RUN, ...body });
    expect([200, 201], JSON.stringify(r.body)).toContain(r.status);
    return r.body;
  };
  return { f, q, runs, schedule, put };
}

describe("practice schedules", () => {
  it("a schedule fires once per due time across duplicate, concurrent and late cron calls", async () => {
    const { q, runs, schedule, put } = await setup();
    const created = await put("nightly");
    expect(created).toMatchObject({ name: "nightly", every: "6h", enabled: true, nextDueAt: SIX, lastRun: null });
    expect(created.run).toMatchObject({ epochs: 1, groupSize: 3, useGroundTruth: true });

    expect((await cron(SIX - 60_000)).practiceSchedulesStarted).toBe(0);
    const both = await Promise.all([cron(SIX), cron(SIX)]);
    expect(both.map((r) => r.practiceSchedulesStarted).sort()).toEqual([0, 1]);
    expect((await cron(SIX)).practiceSchedulesStarted).toBe(0);
    expect((await cron(SIX + 60_000)).practiceSchedulesStarted).toBe(0);
    const first = await runs();
    expect(first).toHaveLength(1);
    expect(await schedule("nightly")).toMatchObject({
      nextDueAt: SIX + 6 * HOUR,
      lastRun: { outcome: "started", dueAt: SIX, at: SIX, runId: first[0]!.runId },
    });

    await q.pump();
    expect((await runs())[0]!.status).toBe("completed");

    // The cron comes back 20 hours later, three due times missed: one run, for the first of them.
    const late = SIX + 20 * HOUR;
    expect((await cron(late)).practiceSchedulesStarted).toBe(1);
    expect((await cron(late)).practiceSchedulesStarted).toBe(0);
    const all = await runs();
    expect(all).toHaveLength(2);
    expect(await schedule("nightly")).toMatchObject({
      nextDueAt: SIX + 24 * HOUR,
      lastRun: { outcome: "started", dueAt: SIX + 6 * HOUR, at: late, runId: all[0]!.runId },
    });
  });

  it("never starts a second run for the agent: the fire is recorded as skipped and the slot passes", async () => {
    const { f, runs, schedule, put } = await setup();
    await put("a");
    await put("b", { every: "0 6 * * *" });
    const manual = await startRun(f, RUN);
    expect((await cron(SIX)).practiceSchedulesStarted).toBe(0);
    for (const name of ["a", "b"]) {
      expect(await schedule(name)).toMatchObject({ lastRun: { outcome: "skipped", dueAt: SIX, reason: expect.stringContaining(manual) } });
    }
    expect((await cron(SIX)).practiceSchedulesStarted).toBe(0);
    expect(await runs()).toHaveLength(1);

    // With the manual run gone, two schedules due at once still start one run between them.
    expect((await f.agent("POST", `/practice-runs/${manual}/cancel`)).body.status).toBe("cancelled");
    const next = SIX + 24 * HOUR;
    expect((await cron(next)).practiceSchedulesStarted).toBe(1);
    const [started, ...rest] = await runs();
    expect(rest.map((r) => r.runId)).toEqual([manual]);
    const outcomes = [await schedule("a"), await schedule("b")].map((s) => s.lastRun);
    expect(outcomes.filter((o) => o.outcome === "started").map((o) => o.runId)).toEqual([started!.runId]);
    expect(outcomes.filter((o) => o.outcome === "skipped")[0].reason).toContain(started!.runId);
  });

  it("a used-up daily token budget is recorded as a skip", async () => {
    const { f, runs, schedule, put } = await setup();
    await put("nightly");
    await env.DB.prepare("UPDATE tenants SET daily_token_budget = 100 WHERE id = ?").bind(f.t.tenantId).run();
    await new LlmLedger(env, { now: () => SIX - HOUR }).record({
      tenantId: f.t.tenantId,
      agentId: null,
      purpose: "test",
      role: "policy",
      model: "m",
      tokensIn: 400,
      tokensOut: 100,
      costUsd: 0,
    });
    expect((await cron(SIX)).practiceSchedulesStarted).toBe(0);
    expect(await schedule("nightly")).toMatchObject({
      nextDueAt: SIX + 6 * HOUR,
      lastRun: { outcome: "skipped", reason: expect.stringMatching(/daily token budget/) },
    });
    expect(await runs()).toHaveLength(0);
  });

  it("a fire whose cron died after claiming it is finished by a later cron, finding the run it had created", async () => {
    const { f, runs, schedule, put } = await setup();
    await put("nightly");
    // The dead cron claimed the due time and created the run, but recorded nothing.
    await env.DB.prepare(
      "UPDATE practice_schedules SET next_due = ?, pending_due = ?, pending_at = ? WHERE tenant_id = ? AND agent_id = ? AND name = 'nightly'",
    )
      .bind(SIX + 6 * HOUR, SIX, SIX, f.t.tenantId, f.agentId)
      .run();
    const orphan = await f.agent(
      "POST",
      "/practice-runs",
      { ...RUN, datasetId: f.datasetId },
      { "idempotency-key": `schedule:nightly:${SIX}` },
    );
    expect(orphan.status).toBe(202);

    expect((await cron(SIX + 60_000)).practiceSchedulesStarted).toBe(0);
    expect((await schedule("nightly")).lastRun).toBeNull();
    expect((await cron(SIX + 5 * 60_000)).practiceSchedulesStarted).toBe(1);
    expect(await schedule("nightly")).toMatchObject({
      nextDueAt: SIX + 6 * HOUR,
      lastRun: { outcome: "started", dueAt: SIX, runId: orphan.body.runId },
    });
    expect((await cron(SIX + 10 * 60_000)).practiceSchedulesStarted).toBe(0);
    expect((await runs()).map((r) => r.runId)).toEqual([orphan.body.runId]);
  });

  it("bad input is a problem and stores nothing; a disabled schedule does not fire", async () => {
    const { f, runs, schedule, put } = await setup();
    const bad = async (name: string, body: Record<string, unknown>, status: number, path?: string) => {
      const r = await f.agent("PUT", `/practice-schedules/${name}`, { every: "6h", datasetId: f.datasetId, run: RUN, ...body });
      expectProblem(r, status);
      if (path) expect(r.body.errors.map((e: any) => e.path)).toContain(path);
    };
    await bad("x", { every: "12h" }, 400, "every");
    await bad("x", { every: "61 * * * *" }, 400, "every");
    await bad("x", { every: "0 0 30 2 *" }, 400, "every");
    await bad("x", { run: { epochs: 1 } }, 400, "run.policy");
    await bad("x", { run: { ...RUN, surprise: true } }, 400);
    await bad("x", { datasetId: "ds_missing" }, 422, "datasetId");
    await bad("x", { run: { ...RUN, verifier: { kind: "nope" } } }, 422);
    await bad("bad%20name", {}, 400);
    expect((await f.agent("GET", "/practice-schedules")).body.items).toEqual([]);
    expectProblem(await f.agent("GET", "/practice-schedules/x"), 404, "not-found");
    expectProblem(await f.agent("DELETE", "/practice-schedules/x"), 404, "not-found");

    await put("nightly");
    const off = await f.agent("PUT", "/practice-schedules/nightly", { every: "6h", datasetId: f.datasetId, run: RUN, enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, nextDueAt: null });
    await bad("nightly", { every: "nope" }, 400);
    expect(await schedule("nightly")).toMatchObject({ every: "6h", enabled: false });
    expect((await cron(SIX)).practiceSchedulesStarted).toBe(0);
    expect(await runs()).toHaveLength(0);

    // Re-enabled after the slot passed: the next due time counts from now.
    expect((await put("nightly")).nextDueAt).toBe(SIX + 6 * HOUR);
    expect((await f.agent("GET", "/practice-schedules")).body.items.map((s: any) => s.name)).toEqual(["nightly"]);
    expect((await f.agent("DELETE", "/practice-schedules/nightly")).body).toEqual({ name: "nightly", deleted: true });
    expect((await cron(SIX + 6 * HOUR)).practiceSchedulesStarted).toBe(0);
  });
});
