import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, newAgent, newTenant } from "../helpers";
import { LlmLedger } from "../../src/llm";
import { practiceRunPorts } from "../../src/platform/objects/follow-up";
import { FILTER_POISON } from "../memory/screening-corpus";
import { captureJobs, receiver, subscribed } from "./harness";

afterEach(() => vi.restoreAllMocks());

describe("where events come from", () => {
  it("a lesson written through the API is `lesson.created`, sent by the agent's object through the queue; poison is `lesson.held` and `lesson.quarantined`, and `lesson.created` once released", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const q = captureJobs();
    let secret = "";
    const got = receiver(() => secret);
    ({ secret } = await subscribed(t, ["lesson.created", "lesson.quarantined", "lesson.held"]));

    const made = await call("POST", `/v1/agents/${agentId}/experiences`, {
      key: t.apiKey,
      body: { text: "Check the units before answering." },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const poison = await call("POST", `/v1/agents/${agentId}/experiences`, { key: t.apiKey, body: FILTER_POISON[0] });
    expect(poison.body.status).toBe("quarantined");
    // Editing a lesson creates nothing.
    await call("PATCH", `/v1/agents/${agentId}/experiences/${made.body.id}`, {
      key: t.apiKey,
      body: { text: "Check the units twice before answering." },
    });
    await q.pump();

    expect(got.every((g) => g.verified)).toBe(true);
    const seen = got.map((g) => [g.body.type, g.body.data.lessonId]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ["lesson.created", made.body.id],
        ["lesson.held", poison.body.id],
        ["lesson.quarantined", poison.body.id],
      ]),
    );
    expect(seen).toHaveLength(3);
    const created = got.find((g) => g.body.data.lessonId === made.body.id)!.body;
    expect(created).toMatchObject({
      tenantId: t.tenantId,
      id: `lesson.created:${made.body.id}`,
      data: { agentId, text: "Check the units before answering.", status: "active" },
    });
    expect(got.find((g) => g.body.type === "lesson.held")!.body).toMatchObject({
      data: { agentId, lessonId: poison.body.id, status: "quarantined", version: poison.body.libraryVersion },
    });

    // Released by an admin, the lesson is created for its readers now: once, whatever happens to it later.
    got.length = 0;
    const released = await call("POST", `/v1/agents/${agentId}/quarantine/${poison.body.id}/release`, { key: t.apiKey });
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    await q.pump();
    expect(got.map((g) => [g.body.type, g.body.data.lessonId, g.body.data.status])).toEqual([["lesson.created", poison.body.id, "active"]]);
  });

  it("a batch of lessons is one event each, carried fifty to a queue message", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const q = captureJobs();
    const got = receiver(() => "");
    await subscribed(t, ["lesson.created"]);
    const operations = Array.from({ length: 60 }, (_, i) => ({
      op: "create",
      experience: { text: `Batch lesson number ${i} about invoices` },
    }));
    const r = await call("POST", `/v1/agents/${agentId}/library/batch`, { key: t.apiKey, body: { reason: "bulk", operations } });
    expect(r.status).toBe(200);
    expect(q.queued.filter((m) => m.body.type === "event.emit").map((m) => m.body.events.length)).toEqual([50, 10]);
    await q.pump();
    expect(new Set(got.map((g) => g.body.data.lessonId)).size).toBe(60);
  });

  it("a call the daily budget refuses is `budget.exhausted`, once a day however many calls are refused", async () => {
    const t = await newTenant();
    await env.DB.prepare("UPDATE tenants SET daily_token_budget = 100 WHERE id = ?").bind(t.tenantId).run();
    const q = captureJobs();
    const got = receiver(() => "");
    await subscribed(t, ["budget.exhausted"]);
    const ledger = new LlmLedger(env);
    for (let i = 0; i < 3; i++) {
      const refused = await ledger
        .open({
          tenantId: t.tenantId,
          purpose: "live-extract",
          role: "learner",
          model: "m",
          callId: crypto.randomUUID(),
          estimate: { tokensIn: 500, tokensOut: 0, costUsd: 0 },
        })
        .catch((e) => e);
      expect(refused.name).toBe("BudgetExceededError");
    }
    await q.pump();
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toMatchObject({ type: "budget.exhausted", tenantId: t.tenantId, data: { budget: 100, used: 0 } });
  });

  it("a practice run whose status reaches D1 as completed is `run.completed`, and `run.promoted` when promoted; a repeated sync sends neither twice", async () => {
    const t = await newTenant();
    const agentId = await newAgent(t.apiKey);
    const q = captureJobs();
    const got = receiver(() => "");
    await subscribed(t, ["run.completed", "run.promoted"]);
    const runId = `run_${crypto.randomUUID().slice(0, 8)}`;
    await env.DB.prepare(
      "INSERT INTO practice_runs (run_id, tenant_id, agent_id, dataset_id, status, config) VALUES (?, ?, ?, 'ds', 'running', '{}')",
    )
      .bind(runId, t.tenantId, agentId)
      .run();
    const ports = practiceRunPorts(env);
    const promotion = { promoted: true, reason: "holdout improved", epoch: 2, version: 7, applied: 3, skipped: [] };
    // The run's object repeats a sync cut short (its alarm), and a failed run sends nothing.
    await ports.syncRow(runId, { status: "completed", summary: { promotion }, error: null });
    await ports.syncRow(runId, { status: "completed", summary: { promotion }, error: null });
    await q.pump();
    expect(got.map((g) => g.body.type).sort()).toEqual(["run.completed", "run.promoted"]);
    expect(got.find((g) => g.body.type === "run.promoted")!.body.data).toEqual({ agentId, runId, version: 7, epoch: 2 });
    expect(got.find((g) => g.body.type === "run.completed")!.body.data).toMatchObject({
      agentId,
      runId,
      status: "completed",
      promotion: { promoted: true },
    });

    const failed = `run_${crypto.randomUUID().slice(0, 8)}`;
    await env.DB.prepare(
      "INSERT INTO practice_runs (run_id, tenant_id, agent_id, dataset_id, status, config) VALUES (?, ?, ?, 'ds', 'running', '{}')",
    )
      .bind(failed, t.tenantId, agentId)
      .run();
    await ports.syncRow(failed, { status: "failed", summary: {}, error: "boom" });
    await q.pump();
    expect(got).toHaveLength(2);
  });
});
