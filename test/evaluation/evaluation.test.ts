import { env, runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bootstrapInterval } from "../../src/core/evaluation/stats";
import { ARITHMETIC, practiceFixture, practiceLlm, seedLessons, startRun } from "../practice/harness";
import type { Res } from "../helpers";
import { api, captureQueues, evaluationFixture, evaluationLlm, GOOD_LESSON, ledger } from "./harness";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Tasks 0–2 of the scripted policy are right in both samples, task 3 in sample seeds that are even, the rest never. */
const right = (task: number, seed: number) => task < 3 || (task === 3 && seed % 2 === 0);

async function evaluate(f: Awaited<ReturnType<typeof evaluationFixture>>, body: Record<string, unknown>) {
  const r = await f.agent("POST", "/evaluations", { datasetId: f.datasetId, policy: { kind: "llm" }, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body.evaluationId as string;
}

describe("evaluation, end to end through the queue and the Evaluation Durable Object", () => {
  it("scores every sample of every holdout task and reports accuracy, its interval, per-task rewards and usage", async () => {
    const f = await evaluationFixture(6);
    await seedLessons(f, ["Show your working."]);
    const q = captureQueues();
    const llm = evaluationLlm({ right });
    const id = await evaluate(f, { samples: 2, seed: 11 });
    const queued = await f.agent("GET", `/evaluations/${id}`);
    expect(queued.body.status).toBe("running");
    expect(queued.body.accuracy).toBeNull();
    await q.pump();

    const ev = await f.agent("GET", `/evaluations/${id}`);
    expect(ev.status).toBe(200);
    expect(ev.body.status, JSON.stringify(ev.body)).toBe("completed");
    expect(ev.body.progress).toEqual({ done: 12, total: 12 });
    expect(llm.sent).toHaveLength(12);
    // Only holdout tasks, and the agent's active library injected as [G#] lines.
    expect(llm.sent.every((s) => !String(s.body.messages.at(-1).content).includes("train"))).toBe(true);
    expect(llm.sent[0]!.body.messages[0].content).toContain("[G0]. Show your working.");

    const means = ev.body.tasks.map((t: any) => t.meanReward);
    const task3 = ev.body.tasks.find((t: any) => t.taskId === "q3");
    expect(task3.rewards).toHaveLength(2);
    expect(means).toEqual([1, 1, 1, task3.rewards.reduce((a: number, b: number) => a + b, 0) / 2, 0, 0]);
    const expected = means.reduce((a: number, b: number) => a + b, 0) / 6;
    expect(ev.body.accuracy).toBeCloseTo(expected, 12);
    expect(ev.body.interval).toEqual(bootstrapInterval(means, { seed: 11 }));
    expect(ev.body.interval[0]).toBeLessThan(expected);
    expect(ev.body.interval[1]).toBeGreaterThan(expected);
    expect(ev.body.config).toMatchObject({
      split: "holdout",
      samples: 2,
      seed: 11,
      verifier: { kind: "exact" },
      library: null,
      libraryVersion: 1,
    });

    // Tokens: in the view, and in the ledger under the evaluation's own purpose.
    expect(ev.body.usage).toMatchObject({ calls: 12, tokensIn: 12 * 120, tokensOut: 12 * 30 });
    expect(await ledger(f.t.apiKey)).toEqual({ "evaluation-rollout": { calls: 12, tokensIn: 12 * 120, tokensOut: 12 * 30 } });

    const list = await f.agent("GET", "/evaluations");
    expect(list.body.items).toEqual([
      expect.objectContaining({ evaluationId: id, status: "completed", accuracy: ev.body.accuracy, interval: ev.body.interval }),
    ]);
  });

  it("is reproducible with a seed, and its interval narrows with more tasks", async () => {
    const seedDependent = (task: number, seed: number) => (task + seed) % 3 !== 0;
    const run = async (n: number, seed: number) => {
      const f = await evaluationFixture(n);
      const q = captureQueues();
      evaluationLlm({ right: seedDependent });
      const id = await evaluate(f, { samples: 2, seed });
      await q.pump();
      const ev = await f.agent("GET", `/evaluations/${id}`);
      vi.restoreAllMocks();
      expect(ev.body.status).toBe("completed");
      return ev.body;
    };
    const first = await run(8, 5);
    const again = await run(8, 5);
    expect(again.tasks).toEqual(first.tasks);
    expect(again.accuracy).toBe(first.accuracy);
    expect(again.interval).toEqual(first.interval);
    const other = await run(8, 6);
    expect(other.tasks).not.toEqual(first.tasks);

    const large = await run(48, 5);
    const width = (b: any) => b.interval[1] - b.interval[0];
    expect(width(large)).toBeLessThan(width(first) / 1.5);
  });

  it("a duplicated delivery of every message changes nothing; lost messages are re-sent by the alarm", async () => {
    // 20 units: more than an evaluation keeps in flight, so duplicates arrive while it is still running.
    const reference = async (opts: { duplicate?: boolean; lose?: boolean }) => {
      const f = await evaluationFixture(10);
      const q = captureQueues();
      const llm = evaluationLlm({ right });
      const id = await evaluate(f, { samples: 2, seed: 3 });
      if (opts.lose) {
        await q.deliverOnce({ max: 4 });
        expect(await q.deliverOnce({ drop: () => true })).toBeGreaterThan(0);
        expect((await f.agent("GET", `/evaluations/${id}`)).body.status).toBe("running");
        vi.useFakeTimers({ toFake: ["Date"] });
        vi.setSystemTime(Date.now() + 11 * 60_000);
        expect(await runDurableObjectAlarm(env.EVALUATION.getByName(id))).toBe(true);
        expect(q.queued.length).toBeGreaterThan(0);
      }
      await q.pump({ duplicate: opts.duplicate });
      const ev = await f.agent("GET", `/evaluations/${id}`);
      const result = {
        status: ev.body.status,
        tasks: ev.body.tasks,
        accuracy: ev.body.accuracy,
        interval: ev.body.interval,
        usage: ev.body.usage,
        ledger: await ledger(f.t.apiKey),
        calls: llm.sent.length,
      };
      vi.useRealTimers();
      vi.restoreAllMocks();
      return result;
    };
    const ref = await reference({});
    expect(ref.status).toBe("completed");
    expect(ref.calls).toBe(20);
    expect(await reference({ duplicate: true })).toEqual(ref);
    expect(await reference({ lose: true })).toEqual(ref);
  });

  it("scores with the llm-judge verifier as units, counted under evaluation-judge", async () => {
    const f = await evaluationFixture(3);
    const q = captureQueues();
    // The judge sees the extracted answer and the reference (42) fenced as data.
    const llm = evaluationLlm({
      right: (task) => task < 2,
      judge: (req) =>
        req.prompt.includes("41")
          ? { verdict: "INCORRECT", score: 0, reasoning: "Does not match." }
          : { verdict: "CORRECT", score: 1, reasoning: "Matches the reference." },
    });
    const id = await evaluate(f, { verifier: { kind: "llm-judge" }, seed: 1 });
    await q.pump();
    const ev = await f.agent("GET", `/evaluations/${id}`);
    expect(ev.body.status).toBe("completed");
    expect(ev.body.tasks.map((t: any) => t.meanReward)).toEqual([1, 1, 0]);
    expect(ev.body.accuracy).toBeCloseTo(2 / 3, 12);
    expect(llm.sent.filter((s) => s.schemaName !== null)).toHaveLength(3);
    const l = await ledger(f.t.apiKey);
    expect(l["evaluation-rollout"].calls).toBe(3);
    expect(l["evaluation-judge"].calls).toBe(3);
    expect(ev.body.usage.calls).toBe(6);
  });
});

describe("comparing two library versions", () => {
  it("reports the version whose lesson makes the policy right as the winner, with a paired interval excluding 0", async () => {
    const f = await evaluationFixture(10);
    const [v1, good] = (await seedLessons(f, ["Answer carefully.", GOOD_LESSON])) as [Res, Res];
    expect(good.body.libraryVersion).toBe(v1.body.libraryVersion + 1);
    const q = captureQueues();
    evaluationLlm({ right: (task) => task < 2 });
    const r = await f.agent("POST", "/evaluations/compare", {
      datasetId: f.datasetId,
      a: { version: v1.body.libraryVersion },
      b: { version: good.body.libraryVersion },
      samples: 1,
      seed: 21,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const running = await f.agent("GET", `/evaluations/compare/${r.body.comparisonId}`);
    expect(running.body.status).toBe("running");
    expect(running.body.difference).toBeNull();
    await q.pump();

    const cmp = await f.agent("GET", `/evaluations/compare/${r.body.comparisonId}`);
    expect(cmp.status).toBe(200);
    expect(cmp.body).toMatchObject({
      status: "completed",
      samples: 1,
      seed: 21,
      a: { evaluationId: r.body.evaluations.a, accuracy: 0.2, library: { version: v1.body.libraryVersion } },
      b: { evaluationId: r.body.evaluations.b, accuracy: 1, library: { version: good.body.libraryVersion } },
      winner: "b",
      tasks: { won: 8, lost: 0, tied: 2 },
    });
    expect(cmp.body.difference).toBeCloseTo(0.8, 12);
    expect(cmp.body.interval[0]).toBeGreaterThan(0);
    // Both sides are ordinary evaluations of the agent.
    const list = await f.agent("GET", "/evaluations");
    expect(list.body.items.map((i: any) => i.evaluationId).sort()).toEqual([r.body.evaluations.a, r.body.evaluations.b].sort());

    // The empty library (version 0) against the lesson, the other way round: a wins.
    const swapped = await f.agent("POST", "/evaluations/compare", {
      datasetId: f.datasetId,
      a: { version: good.body.libraryVersion },
      b: { version: 0 },
      seed: 21,
    });
    await q.pump();
    const back = await f.agent("GET", `/evaluations/compare/${swapped.body.comparisonId}`);
    expect(back.body).toMatchObject({ status: "completed", winner: "a", tasks: { won: 0, lost: 8, tied: 2 } });
  });
});

describe("evaluation input and isolation", () => {
  it("refuses bad input with problem+json and stores nothing", async () => {
    const f = await evaluationFixture(2);
    const trainOnly = await api("POST", "/v1/datasets", f.t.apiKey, {
      name: "train only",
      tasks: [{ id: "t", task: "x?", groundTruth: "1", split: "train" }],
    });
    const q = captureQueues();
    const llm = evaluationLlm({ right });
    const cases: [Record<string, unknown>, number, string][] = [
      [{ datasetId: "ds_missing" }, 422, "datasetId"],
      [{ datasetId: trainOnly.body.datasetId }, 422, "split"],
      [{ samples: 9 }, 400, "samples"],
      [{ samples: 0 }, 400, "samples"],
      [{ library: { version: 99 } }, 422, "library.version"],
      [{ library: { runId: "run_missing" } }, 422, "library.runId"],
      [{ verifier: { kind: "majority" } }, 422, "samples"],
      [{ verifier: { kind: "nope" } }, 422, "verifier.kind"],
    ];
    for (const [body, status, path] of cases) {
      const r = await f.agent("POST", "/evaluations", { datasetId: f.datasetId, policy: { kind: "llm" }, ...body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.body.errors.map((e: any) => e.path).join(","), JSON.stringify(r.body)).toContain(path);
    }
    const cmp = await f.agent("POST", "/evaluations/compare", { datasetId: f.datasetId, a: { version: 0 }, b: { runId: "run_missing" } });
    expect(cmp.status).toBe(422);
    expect(cmp.body.errors[0].path).toBe("b.runId");
    expect((await f.agent("GET", "/evaluations")).body.items).toEqual([]);
    expect(q.queued).toHaveLength(0);
    expect(llm.sent).toHaveLength(0);
  });

  it("another tenant's evaluations and comparisons are 404s", async () => {
    const f = await evaluationFixture(2);
    const q = captureQueues();
    evaluationLlm({ right });
    const id = await evaluate(f, { seed: 1 });
    const cmp = await f.agent("POST", "/evaluations/compare", { datasetId: f.datasetId, a: { version: 0 }, b: { version: 0 }, seed: 1 });
    await q.pump();

    const other = await evaluationFixture(2);
    await api("PUT", `/v1/agents/${f.agentId}`, other.t.apiKey, { displayName: "same id, other tenant" });
    for (const path of [`/evaluations/${id}`, `/evaluations/compare/${cmp.body.comparisonId}`]) {
      const r = await api("GET", `/v1/agents/${f.agentId}${path}`, other.t.apiKey);
      expect(r.status, path).toBe(404);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await api("GET", `/v1/agents/${f.agentId}/evaluations`, other.t.apiKey)).body.items).toEqual([]);
    // The other tenant's dataset cannot be named either.
    const cross = await f.agent("POST", "/evaluations", { datasetId: other.datasetId, policy: { kind: "llm" } });
    expect(cross.status).toBe(422);
  });
});

describe("evaluating a practice run's library", () => {
  it("injects the run's library as it stands, not the agent's", async () => {
    const f = await practiceFixture(ARITHMETIC);
    await seedLessons(f, ["Show your working."]);
    const q = captureQueues();
    practiceLlm();
    const runId = await startRun(f, { epochs: 1, batchSize: 4, groupSize: 3, seed: 7, promote: "never" });
    await q.pump();
    const runLib = await f.agent("GET", `/practice-runs/${runId}/library`);
    expect(runLib.body.items.length).toBeGreaterThan(1);
    vi.restoreAllMocks();

    const q2 = captureQueues();
    const llm = evaluationLlm({ right });
    const r = await f.agent("POST", "/evaluations", {
      datasetId: f.datasetId,
      split: "train",
      library: { runId },
      policy: { kind: "llm" },
      seed: 1,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    await q2.pump();
    const ev = await f.agent("GET", `/evaluations/${r.body.evaluationId}`);
    expect(ev.body).toMatchObject({
      status: "completed",
      librarySize: runLib.body.items.length,
      config: { library: { runId }, libraryVersion: null },
    });
    const system = llm.sent[0]!.body.messages[0].content as string;
    runLib.body.items.forEach((e: any, i: number) => expect(system).toContain(`[G${i}]. ${e.text}`));
    // The agent's own library did not take the run's lessons (promote: never).
    expect((await f.agent("GET", "/experiences")).body.items).toHaveLength(1);
  });
});
