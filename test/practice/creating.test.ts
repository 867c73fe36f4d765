import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { admitQueuedRuns, failAbandonedSetups } from "../../src/platform/practice/runs";
import { api, captureQueues, practiceEnv, practiceFixture, practiceLlm, startRun } from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const TASKS = 1200;

describe("a run exists only when whole", () => {
  it("admission racing a run's setup of > 500 tasks never starts it before every task is stored", async () => {
    const f = await practiceFixture([]);
    const tasks = Array.from({ length: TASKS }, (_, i) => ({
      id: `t${i}`,
      task: `What is ${i} + 0?`,
      groundTruth: String(i),
      split: "train",
    }));
    const ds = await api("POST", "/v1/datasets", f.t.apiKey, { name: "big", tasks: tasks.slice(0, 500) });
    expect(ds.status).toBe(201);
    for (let i = 500; i < TASKS; i += 500) {
      expect(
        (await api("POST", `/v1/datasets/${ds.body.datasetId}/tasks`, f.t.apiKey, { tasks: tasks.slice(i, i + 500) })).status,
      ).toBeLessThan(300);
    }
    captureQueues();
    practiceLlm();
    let done = false;
    const create = f
      .agent("POST", "/practice-runs", {
        datasetId: ds.body.datasetId,
        policy: { kind: "llm" },
        epochs: 1,
        batchSize: 100,
        groupSize: 2,
        seed: 1,
      })
      .finally(() => {
        done = true;
      });
    // The cron, another run's end or another request's waitUntil admitting while the create is under way.
    let admissions = 0;
    while (!done && admissions < 500) {
      await admitQueuedRuns(practiceEnv, f.t.tenantId);
      await scheduler.wait(2);
      admissions++;
    }
    const created = await create;
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(admissions).toBeGreaterThan(1);
    await admitQueuedRuns(practiceEnv, f.t.tenantId);
    const run = await f.agent("GET", `/practice-runs/${created.body.runId}`);
    expect(run.body.status).toBe("running");
    expect(run.body.progress.stepsPerEpoch).toBe(TASKS / 100);
    expect(run.body.progress.rollouts.total).toBe(TASKS * 2);
  });

  it("every epoch's held-out evaluation uses the tasks frozen at creation, whatever the dataset gains meanwhile", async () => {
    const f = await practiceFixture([]);
    const holdout = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `h${from + i}`,
        task: `Holdout: what is ${40 + i} + 2 - ${i}?`,
        groundTruth: "42",
        split: "holdout",
      }));
    const ds = await api("POST", "/v1/datasets", f.t.apiKey, {
      name: "frozen",
      tasks: [
        { id: "t1", task: "What is 17 + 25?", groundTruth: "42", split: "train" },
        { id: "t2", task: "What is 6 * 7?", groundTruth: "42", split: "train" },
        ...holdout(0, 3),
      ],
    });
    expect(ds.status).toBe(201);
    const q = captureQueues();
    practiceLlm();
    const runId = await startRun(
      { ...f, datasetId: ds.body.datasetId },
      { epochs: 2, batchSize: 2, groupSize: 3, seed: 5, promote: "gate" },
    );
    await q.deliverOnce({ max: 2 });
    expect((await api("POST", `/v1/datasets/${ds.body.datasetId}/tasks`, f.t.apiKey, { tasks: holdout(3, 4) })).status).toBeLessThan(300);
    await q.pump();
    const run = (await f.agent("GET", `/practice-runs/${runId}`)).body;
    expect(run.status).toBe("completed");
    expect(run.evaluations.map((e: any) => e.epoch)).toEqual([0, 1, 2]);
    for (const e of run.evaluations) {
      const ev = (await f.agent("GET", `/evaluations/${e.evaluationId}`)).body;
      expect(ev.tasks.map((t: any) => t.taskId)).toEqual(["h0", "h1", "h2"]);
    }
  });

  it("a run still `creating` is never admitted; the cron fails one whose setup was abandoned", async () => {
    const f = await practiceFixture([{ id: "a", task: "What is 1 + 1?", groundTruth: "2" }]);
    const insert = (runId: string, updatedAt: number) =>
      env.DB.prepare(
        "INSERT INTO practice_runs (run_id, tenant_id, agent_id, dataset_id, status, config, created_at, updated_at) VALUES (?, ?, ?, ?, 'creating', '{}', ?, ?)",
      )
        .bind(runId, f.t.tenantId, f.agentId, f.datasetId, updatedAt, updatedAt)
        .run();
    const now = Date.now();
    await insert(`run_${crypto.randomUUID().slice(0, 8)}`, now);
    await insert(`run_${crypto.randomUUID().slice(0, 8)}`, now - 20 * 60_000);
    expect(await admitQueuedRuns(practiceEnv, f.t.tenantId)).toEqual([]);
    expect(await failAbandonedSetups(practiceEnv, now)).toBe(1);
    const rows = await env.DB.prepare("SELECT status FROM practice_runs WHERE tenant_id = ? ORDER BY updated_at")
      .bind(f.t.tenantId)
      .all<{ status: string }>();
    expect(rows.results.map((r) => r.status).sort()).toEqual(["creating", "failed"]);
  });
});
