import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { expectProblem } from "../helpers";
import { ARITHMETIC, api, captureQueues, practiceEnv, practiceFixture, practiceLlm } from "./harness";

const HOUR = 3_600_000;
const T0 = Date.parse("2030-01-01T01:00:00.000Z");
const RUN = { policy: { kind: "llm" }, epochs: 1, batchSize: 2, groupSize: 3, seed: 7 };
const REMEDIAL = { enabled: true, windowEpisodes: 10, minSuccessRate: 0.6, cooldownHours: 24, run: RUN };

/** The agent's ended episodes, oldest first: 4 of 10 succeed. */
const HISTORY: [task: string, outcome: "success" | "failure", answer: string][] = [
  ["What is 6 * 7?", "failure", "41"],
  ["What is 6 * 7?", "success", "42"],
  ["What is 84 / 2?", "failure", "41"],
  ["What is 50 - 8?", "failure", "41"],
  ["What is 84 / 2?", "failure", "40"],
  ["What is 17 + 25?", "success", "42"],
  ["What is 9 + 9?", "failure", "17"],
  ["What is 50 - 8?", "success", "42"],
  ["What is 3 * 3?", "success", "9"],
  ["What is 84 / 2?", "failure", "43"],
];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

let n = 0;
/** Delivers sweep messages for the agent (one per `at`, side by side) through the real jobs consumer. */
async function deliverSweeps(tenantId: string, agentId: string, ats: number[], runEnv = practiceEnv) {
  vi.setSystemTime(Math.max(...ats));
  const batch = createMessageBatch(
    "praxis-jobs",
    ats.map((at) => ({ id: `sweep${n++}`, timestamp: new Date(at), attempts: 1, body: { type: "agent.sweep", tenantId, agentId, at } })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, runEnv);
  return getQueueResult(batch, ctx);
}

/** Delivers the cron's sweep message for the agent, `copies` at once, and expects no failure. */
async function sweep(tenantId: string, agentId: string, at: number, copies = 1) {
  const result = await deliverSweeps(
    tenantId,
    agentId,
    Array.from({ length: copies }, () => at),
  );
  expect(result.retryMessages).toEqual([]);
}

/**
 * The D1 binding with every statement a few ms late, so concurrent checks interleave at each
 * query, and a statement matching `fail` thrown once as the binding throws a lost connection.
 */
function slowDb(opts: { fail?: RegExp; delayMs?: number } = {}) {
  const real = practiceEnv.DB;
  let fail = opts.fail;
  const late = <T>(p: Promise<T>) => new Promise<T>((resolve, reject) => setTimeout(() => p.then(resolve, reject), opts.delayMs ?? 3));
  const wrap = (stmt: D1PreparedStatement, sql: string): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...args: unknown[]) => wrap(target.bind(...args), sql);
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop === "all" || prop === "run" || prop === "first" || prop === "raw") {
          return (...args: unknown[]) => {
            if (fail?.test(sql)) {
              fail = undefined;
              return Promise.reject(new Error("D1_ERROR: Network connection lost."));
            }
            return late((value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
          };
        }
        return value.bind(target);
      },
    });
  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql), sql);
      if (prop === "batch") return (stmts: D1PreparedStatement[]) => late(target.batch(stmts));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...practiceEnv, DB: db } as typeof practiceEnv;
}

async function setup() {
  const f = await practiceFixture(ARITHMETIC);
  captureQueues();
  practiceLlm();
  let clock = T0;
  const end = async (task: string, outcome: string, answer: string) => {
    vi.setSystemTime((clock += 60_000));
    const id = (await f.agent("POST", "/episodes", { task })).body.episodeId as string;
    expect((await f.agent("POST", `/episodes/${id}/end`, { outcome, answer })).status).toBe(200);
    return id;
  };
  const runs = async () => (await f.agent("GET", "/practice-runs")).body.items as { runId: string; datasetId: string; status: string }[];
  const remedialDatasets = async () =>
    ((await api("GET", "/v1/datasets?limit=200", f.t.apiKey)).body.items as { datasetId: string; name: string }[]).filter((d) =>
      d.name.startsWith("remedial"),
    );
  return { f, end, runs, remedialDatasets, now: () => clock };
}

describe("remedial practice", () => {
  it("triggers once per cooldown when the window's success rate falls below the minimum, on a dataset mined from the failures", async () => {
    const { f, end, runs, remedialDatasets, now } = await setup();
    const patched = await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.remedial).toMatchObject({ ...REMEDIAL, run: { ...RUN, useGroundTruth: true } });
    expect(patched.body.k1).toBe(20);

    const ids: string[] = [];
    for (const [task, outcome, answer] of HISTORY.slice(0, 9)) ids.push(await end(task, outcome, answer));
    // Nine ended episodes do not fill the window of ten: a low rate so far is no trigger.
    await sweep(f.t.tenantId, f.agentId, now());
    expect(await runs()).toHaveLength(0);

    const [task, outcome, answer] = HISTORY[9]!;
    ids.push(await end(task, outcome, answer));
    const at = now() + 60_000;
    await sweep(f.t.tenantId, f.agentId, at, 2);
    await sweep(f.t.tenantId, f.agentId, at);
    const first = await runs();
    expect(first).toHaveLength(1);
    expect(first[0]!.status).toBe("running");
    const mined = await remedialDatasets();
    expect(mined.map((d) => d.datasetId)).toEqual([first[0]!.datasetId]);

    const ds = await api("GET", `/v1/datasets/${first[0]!.datasetId}`, f.t.apiKey);
    expect(ds.body.verifier).toMatchObject({ kind: "llm-judge" });
    const tasks = (await api("GET", `/v1/datasets/${first[0]!.datasetId}/tasks`, f.t.apiKey)).body.items as any[];
    const byTask = Object.fromEntries(tasks.map((t) => [t.task, { id: t.id, groundTruth: t.groundTruth }]));
    expect(byTask).toEqual({
      "What is 6 * 7?": { id: ids[0], groundTruth: "42" },
      "What is 84 / 2?": { id: ids[9], groundTruth: null },
      "What is 50 - 8?": { id: ids[3], groundTruth: "42" },
      "What is 9 + 9?": { id: ids[6], groundTruth: null },
    });

    // Within the cooldown nothing starts, even with no run going; after it, the still-failing agent practises again.
    expect((await f.agent("POST", `/practice-runs/${first[0]!.runId}/cancel`)).body.status).toBe("cancelled");
    await sweep(f.t.tenantId, f.agentId, at + HOUR);
    await sweep(f.t.tenantId, f.agentId, at + 23 * HOUR);
    expect(await runs()).toHaveLength(1);
    expect(await remedialDatasets()).toHaveLength(1);
    // The agent now fails at a new task: the next trigger practises on it, in the same dataset.
    let clock = at + 23 * HOUR;
    const fresh: string[] = [];
    for (let i = 0; i < 10; i++) {
      vi.setSystemTime((clock += 60_000));
      const id = (await f.agent("POST", "/episodes", { task: "What is 7 * 8?" })).body.episodeId as string;
      expect(
        (await f.agent("POST", `/episodes/${id}/end`, { outcome: i < 7 ? "failure" : "success", answer: i < 7 ? "54" : "56" })).status,
      ).toBe(200);
      fresh.push(id);
    }
    await sweep(f.t.tenantId, f.agentId, at + 24 * HOUR, 2);
    const second = await runs();
    expect(second).toHaveLength(2);
    expect(second[0]!.runId).not.toBe(first[0]!.runId);
    expect(second[0]!.datasetId).toBe(first[0]!.datasetId);
    expect((await remedialDatasets()).map((d) => d.datasetId)).toEqual([first[0]!.datasetId]);
    const refreshed = (await api("GET", `/v1/datasets/${first[0]!.datasetId}/tasks`, f.t.apiKey)).body.items as any[];
    expect(refreshed.map((t) => ({ id: t.id, task: t.task, groundTruth: t.groundTruth }))).toEqual([
      { id: fresh[6], task: "What is 7 * 8?", groundTruth: "56" },
    ]);
  });

  it("a failure between the trigger and its run leaves the trigger to the next check, which starts exactly one run", async () => {
    const { f, end, runs, remedialDatasets, now } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    for (const [task, outcome, answer] of HISTORY) await end(task, outcome, answer);
    const at = now() + 60_000;
    const failed = await deliverSweeps(f.t.tenantId, f.agentId, [at], slowDb({ fail: /INSERT INTO practice_runs/ }));
    expect(failed.retryMessages).toHaveLength(1);
    expect(await runs()).toHaveLength(0);

    // The queue's redelivery (same message) and, independently, the next sweep within the cooldown.
    await sweep(f.t.tenantId, f.agentId, at);
    await sweep(f.t.tenantId, f.agentId, at + HOUR);
    const started = await runs();
    expect(started).toHaveLength(1);
    expect(["queued", "running"]).toContain(started[0]!.status);
    expect((await remedialDatasets()).map((d) => d.datasetId)).toEqual([started[0]!.datasetId]);
  });

  it("a run whose setup failed spends no trigger: the next check sets up a fresh run", async () => {
    const { f, end, runs, remedialDatasets, now } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    for (const [task, outcome, answer] of HISTORY) await end(task, outcome, answer);
    const at = now() + 60_000;
    const failed = await deliverSweeps(f.t.tenantId, f.agentId, [at], slowDb({ fail: /SET status = 'queued'/ }));
    expect(failed.retryMessages).toHaveLength(1);
    const broken = await runs();
    expect(broken.map((r) => r.status)).toEqual(["failed"]);

    await sweep(f.t.tenantId, f.agentId, at + HOUR);
    await sweep(f.t.tenantId, f.agentId, at + 2 * HOUR);
    const after = await runs();
    expect(after).toHaveLength(2);
    const fresh = after.find((r) => r.runId !== broken[0]!.runId)!;
    expect(["queued", "running"]).toContain(fresh.status);
    expect((await remedialDatasets()).map((d) => d.datasetId)).toEqual([fresh.datasetId]);
  });

  it("concurrent checks of one agent, each a few ms behind the other at every query, start one run on one dataset", async () => {
    const { f, end, runs, remedialDatasets, now } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    for (const [task, outcome, answer] of HISTORY) await end(task, outcome, answer);
    const at = now() + 60_000;
    const result = await deliverSweeps(f.t.tenantId, f.agentId, [at, at + 1, at + 2, at + 3], slowDb());
    expect(result.retryMessages).toEqual([]);
    const started = await runs();
    expect(started).toHaveLength(1);
    // Every check completed the same trigger; the setups that ran side by side left the run whole.
    expect(["queued", "running"]).toContain(started[0]!.status);
    expect((await remedialDatasets()).map((d) => d.datasetId)).toEqual([started[0]!.datasetId]);
    const tasks = (await api("GET", `/v1/datasets/${started[0]!.datasetId}/tasks`, f.t.apiKey)).body.items as any[];
    expect(tasks.map((t) => t.task).sort()).toEqual(["What is 50 - 8?", "What is 6 * 7?", "What is 84 / 2?", "What is 9 + 9?"]);
  });

  it("a run of the agent still being created holds the trigger back without spending it", async () => {
    const { f, end, runs, now } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    for (const [task, outcome, answer] of HISTORY) await end(task, outcome, answer);
    const busy = "run_being_created_elsewhere";
    await env.DB.prepare(
      "INSERT INTO practice_runs (run_id, tenant_id, agent_id, dataset_id, status, config) VALUES (?1, ?2, ?3, ?4, 'creating', '{}')",
    )
      .bind(busy, f.t.tenantId, f.agentId, f.datasetId)
      .run();
    const at = now() + 60_000;
    await sweep(f.t.tenantId, f.agentId, at);
    expect((await runs()).map((r) => r.runId)).toEqual([busy]);
    await env.DB.prepare("UPDATE practice_runs SET status = 'failed' WHERE run_id = ?1").bind(busy).run();
    await sweep(f.t.tenantId, f.agentId, at + HOUR);
    const after = await runs();
    expect(after).toHaveLength(2);
    expect(after.find((r) => r.runId !== busy)!.status).toMatch(/queued|running/);
  });

  it("a trigger held back by the agent's other run asks again later through a delayed message, which then starts the run", async () => {
    const { f, end, runs, now } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    for (const [task, outcome, answer] of HISTORY) await end(task, outcome, answer);
    const busy = "run_still_going_elsewhere";
    await env.DB.prepare(
      "INSERT INTO practice_runs (run_id, tenant_id, agent_id, dataset_id, status, config) VALUES (?1, ?2, ?3, ?4, 'running', '{}')",
    )
      .bind(busy, f.t.tenantId, f.agentId, f.datasetId)
      .run();
    const sent: { body: any; opts: any }[] = [];
    const jobs = practiceEnv.JOBS;
    const recording = {
      ...practiceEnv,
      JOBS: {
        send: async (body: any, opts?: any) => void sent.push({ body, opts }),
        sendBatch: jobs.sendBatch.bind(jobs),
      } as unknown as Queue,
    };
    const at = now() + 60_000;
    const first = await deliverSweeps(f.t.tenantId, f.agentId, [at], recording);
    expect(first.retryMessages).toEqual([]);
    expect((await runs()).map((r) => r.runId)).toEqual([busy]);
    const recheck = sent.filter((s) => s.body.type === "agent.remedial");
    expect(recheck).toHaveLength(1);
    expect(recheck[0]!.body).toMatchObject({ tenantId: f.t.tenantId, agentId: f.agentId });
    expect(recheck[0]!.opts.delaySeconds).toBeGreaterThanOrEqual(60);

    // The other run ends; the delayed message arrives, with no new episode in between.
    await env.DB.prepare("UPDATE practice_runs SET status = 'completed' WHERE run_id = ?1").bind(busy).run();
    vi.setSystemTime(recheck[0]!.body.at);
    const batch = createMessageBatch("praxis-jobs", [
      { id: `recheck${n++}`, timestamp: new Date(recheck[0]!.body.at), attempts: 1, body: recheck[0]!.body },
    ]);
    await worker.queue(batch, practiceEnv);
    expect((await getQueueResult(batch, createExecutionContext())).retryMessages).toEqual([]);
    const after = await runs();
    expect(after).toHaveLength(2);
    expect(after.find((r) => r.runId !== busy)!.status).toMatch(/queued|running/);
  });

  it("does not trigger while the agent succeeds often enough, nor while it is off", async () => {
    const { f, end, runs, now } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    for (const [task, , answer] of HISTORY) await end(task, "success", answer);
    for (let i = 0; i < 4; i++) await end("What is 9 + 9?", "failure", "17");
    // 6 of the last 10 succeed: at the minimum, not below it.
    await sweep(f.t.tenantId, f.agentId, now() + 60_000);
    expect(await runs()).toHaveLength(0);
    await end("What is 9 + 9?", "failure", "17");
    await f.agent("PATCH", "/config", { remedial: { enabled: false } });
    await sweep(f.t.tenantId, f.agentId, now() + 60_000);
    expect(await runs()).toHaveLength(0);
    const on = await f.agent("PATCH", "/config", { remedial: { enabled: true } });
    expect(on.body.remedial).toMatchObject(REMEDIAL);
    await sweep(f.t.tenantId, f.agentId, now() + 2 * 60_000);
    expect(await runs()).toHaveLength(1);
  });

  it("abandoned episodes count neither as failures nor towards the window", async () => {
    const { f, end, runs, now } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    for (let i = 0; i < 6; i++) await end("What is 6 * 7?", "success", "42");
    for (let i = 0; i < 4; i++) await end("What is 9 + 9?", "failure", "17");
    for (let i = 0; i < 5; i++) await end("What is 9 + 9?", "abandoned", "");
    // Still 6 of the last 10 task outcomes succeed; counting the abandoned ones would make it 1 of 10.
    await sweep(f.t.tenantId, f.agentId, now() + 60_000);
    expect(await runs()).toHaveLength(0);
  });

  it("bad remedial settings are a problem and change nothing", async () => {
    const { f } = await setup();
    await f.agent("PATCH", "/config", { remedial: REMEDIAL });
    const before = (await f.agent("GET", "/config")).body;
    for (const [remedial, path] of [
      [{ windowEpisodes: 5 }, "remedial.windowEpisodes"],
      [{ minSuccessRate: 1.5 }, "remedial.minSuccessRate"],
      [{ cooldownHours: 0 }, "remedial.cooldownHours"],
      [{ run: { epochs: 1 } }, "remedial.run.policy"],
      [{ surprise: true }, "remedial"],
    ] as const) {
      const r = await f.agent("PATCH", "/config", { remedial });
      expectProblem(r, 400, "validation-failed");
      expect(
        r.body.errors.map((e: any) => e.path),
        JSON.stringify(remedial),
      ).toContain(path);
    }
    expect((await f.agent("GET", "/config")).body).toEqual(before);
  });
});
