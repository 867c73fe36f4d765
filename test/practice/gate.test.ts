import { afterEach, describe, expect, it, vi } from "vitest";
import { api, captureQueues, practiceFixture, practiceLlm, proposalsIn, startRun } from "./harness";
import type { SentRequest } from "../fake-llm";
import { rolloutSeed, roundSeed } from "../../src/core/practice/rng";

afterEach(() => vi.restoreAllMocks());

const TRAIN = [
  { id: "t1", task: "What is 17 + 25?", groundTruth: "42", split: "train" },
  { id: "t2", task: "What is 6 * 7?", groundTruth: "42", split: "train" },
];
/** Ten held-out tasks: enough for the rule to share its error rate among four looks (eight are needed). */
const HOLDOUT = Array.from({ length: 10 }, (_, i) => ({
  id: `h${i}`,
  task: `Holdout: what is ${40 + i} + 2 - ${i}?`,
  groundTruth: "42",
  split: "holdout",
}));

const VALIDATION = Array.from({ length: 6 }, (_, i) => ({
  id: `v${i}`,
  task: `Validation: what is ${30 + i} + 12 - ${i}?`,
  groundTruth: "42",
  split: "validation",
}));

/** Train rollouts stay mixed whatever the library says, so every step has groups to learn from. */
const mixed = (seed: number) => seed % 3 !== 0;
/** Held-out and validation tasks: what the library is judged and chosen on. */
const evaluated = (task: string) => task.startsWith("Holdout") || task.startsWith("Validation");

async function fixture(extra: typeof TRAIN = []) {
  const f = await practiceFixture([]);
  const ds = await api("POST", "/v1/datasets", f.t.apiKey, { name: "with holdout", tasks: [...TRAIN, ...HOLDOUT, ...extra] });
  expect(ds.status, JSON.stringify(ds.body)).toBe(201);
  return { ...f, datasetId: ds.body.datasetId as string };
}

async function finish(f: Awaited<ReturnType<typeof fixture>>, runId: string, q: ReturnType<typeof captureQueues>) {
  await q.pump();
  const run = await f.agent("GET", `/practice-runs/${runId}`);
  expect(run.status).toBe(200);
  return run.body;
}

const activeTexts = async (f: Awaited<ReturnType<typeof fixture>>) =>
  ((await f.agent("GET", "/experiences?limit=100")).body.items as { text: string; status: string }[])
    .filter((e) => e.status === "active")
    .map((e) => e.text);

describe("the holdout gate", () => {
  /** Any learned "Re-check" lesson makes holdout answers wrong; without one they are mostly right. */
  const harmful = (task: string, seed: number, prompt: string) =>
    task.startsWith("Holdout") ? !prompt.includes("Re-check") && seed % 4 !== 0 : mixed(seed);

  it("refuses to promote a library that makes the policy worse on holdout; `always` promotes it", async () => {
    const f = await fixture();
    const q = captureQueues();
    practiceLlm({ policy: harmful });
    const gated = await startRun(f, { epochs: 2, batchSize: 2, groupSize: 4, seed: 5, evaluate: { samples: 2 } });
    const run = await finish(f, gated, q);

    expect(run.status).toBe("completed");
    expect(run.config.promote).toBe("gate");
    expect(run.promotion).toMatchObject({
      promoted: false,
      version: null,
      decision: { verdict: "not-better", split: "holdout", incumbentEpoch: 0, candidateEpoch: 2, tasks: 10, samples: 2, rounds: 1 },
    });
    expect(run.promotion.decision.interval[1]).toBeLessThan(0);
    expect(run.promotion.reason).toMatch(/^gate closed \(not better\): holdout accuracy 0\.0%.*candidate − incumbent −/);
    expect(run.librarySize).toBeGreaterThan(0);
    expect(await activeTexts(f)).toEqual([]);

    const curve = await f.agent("GET", `/practice-runs/${gated}/curve`);
    expect(curve.status).toBe(200);
    expect(curve.body.epochs.map((e: { epoch: number }) => e.epoch)).toEqual([0, 1, 2]);
    const [start, , final] = curve.body.epochs;
    expect(start.status).toBe("completed");
    expect(start.holdoutAccuracy).toBeGreaterThan(final.holdoutAccuracy);
    expect(final.holdoutAccuracy).toBe(0);
    expect(start.interval[0]).toBeLessThanOrEqual(start.holdoutAccuracy);
    expect(start.interval[1]).toBeGreaterThanOrEqual(start.holdoutAccuracy);
    expect(start.tokens).toBeGreaterThan(0);
    expect(curve.body.steps).toHaveLength(2);
    expect(curve.body.steps[0]).toMatchObject({ epoch: 0, step: 0 });
    expect(curve.body.steps[0].trainReward).toBeGreaterThan(0);
    expect(curve.body.steps[0].tokens).toBeGreaterThan(0);
    expect(curve.body.steps[1].librarySize).toBe(run.librarySize);

    const always = await startRun(f, { epochs: 2, batchSize: 2, groupSize: 4, seed: 5, evaluate: { samples: 2 }, promote: "always" });
    const promoted = await finish(f, always, q);
    expect(promoted.promotion.promoted).toBe(true);
    expect(promoted.promotion.reason).toMatch(/holdout accuracy 0\.0%/);
    expect((await activeTexts(f)).length).toBe(promoted.librarySize);
    const versions = await f.agent("GET", "/library/versions");
    expect(versions.body.items[0].reason).toContain("holdout accuracy");
  });

  it("promotes a library that helps, with the evidence in the version's reason", async () => {
    const f = await fixture();
    const q = captureQueues();
    const helpful = (task: string, seed: number, prompt: string) =>
      task.startsWith("Holdout") ? prompt.includes("Re-check") || seed % 2 === 0 : mixed(seed);
    practiceLlm({ policy: helpful });
    const runId = await startRun(f, { epochs: 1, batchSize: 2, groupSize: 4, seed: 9, evaluate: { samples: 2, every: "end" } });
    const run = await finish(f, runId, q);
    const d = run.promotion.decision;
    // Ten held-out tasks at two samples may not settle it at once: the gate then draws more.
    expect(run.promotion).toMatchObject({ promoted: true, epoch: 1, decision: { verdict: "better", tasks: 10, samples: 2 * d.rounds } });
    expect(d.rollouts).toBe(2 * 10 * d.samples);
    expect(d.interval[0]).toBeGreaterThan(0);
    expect(d.rule).toMatch(/lower bound .* above minGain 0/);
    expect(run.promotion.reason).toMatch(/gate passed: holdout accuracy 100\.0%/);
    const rounds = Array.from({ length: d.rounds }, (_, r) => r);
    expect(run.evaluations.map((e: { epoch: number; round: number }) => [e.epoch, e.round])).toEqual([
      ...rounds.map((r) => [0, r]),
      ...rounds.map((r) => [1, r]),
    ]);
    const versions = await f.agent("GET", "/library/versions");
    expect(versions.body.items[0].reason).toMatch(/gate passed.*starting/);
    expect(await activeTexts(f)).toHaveLength(run.librarySize);
  });

  it("does not promote a library that changes nothing: both are scored with the same draws, and a tie keeps the start", async () => {
    const f = await fixture();
    const q = captureQueues();
    // The lessons are words the policy ignores: every promotion would be a false one.
    practiceLlm({ policy: (task, seed) => (evaluated(task) ? seed % 2 === 0 : mixed(seed)) });
    const runId = await startRun(f, { epochs: 2, batchSize: 2, groupSize: 4, seed: 13, evaluate: { samples: 3 } });
    const run = await finish(f, runId, q);
    expect(run.librarySize).toBeGreaterThan(0);
    const [start, , final] = run.evaluations;
    expect(final.holdoutAccuracy).toBe(start.holdoutAccuracy);
    expect(run.promotion).toMatchObject({
      promoted: false,
      decision: { verdict: "not-better", difference: 0, interval: [0, 0], p: 1, tasks: 10, samples: 3, tied: 10, rounds: 1 },
    });
    expect(run.promotion.reason).toMatch(/^gate closed \(not better\)/);
    expect(await activeTexts(f)).toEqual([]);
  });

  it("draws more paired samples of both libraries while the interval straddles 0, counting them in the run", async () => {
    // A lesson that helps on one draw in four: pick a run seed whose first round shows it on one
    // task only (one win, nine ties), which no rule can call.
    const gainOn = (seed: number) => seed % 4 === 1;
    const runSeed = Array.from({ length: 500 }, (_, s) => s).find(
      (s) => HOLDOUT.filter((_, t) => gainOn(rolloutSeed(roundSeed(s, 0), 0, t, 0))).length === 1,
    )!;
    const f = await fixture();
    const q = captureQueues();
    practiceLlm({
      policy: (task, seed, prompt) => (evaluated(task) ? seed % 2 === 0 || (prompt.includes("Re-check") && gainOn(seed)) : mixed(seed)),
    });
    const runId = await startRun(f, {
      epochs: 1,
      batchSize: 2,
      groupSize: 4,
      seed: runSeed,
      evaluate: { samples: 1, maxSamples: 4, every: "end" },
    });
    const run = await finish(f, runId, q);
    const d = run.promotion.decision;
    expect(d.rounds).toBeGreaterThan(1);
    expect(d).toMatchObject({ tasks: 10, samples: d.rounds, rollouts: 2 * 10 * d.rounds, looks: 4 });
    expect(d.level).toBeCloseTo(1 - 0.05 / 4, 12);
    type Ev = { epoch: number; round: number; evaluationId: string; tokens: number; status: string };
    const evals = run.evaluations as Ev[];
    for (let r = 0; r < d.rounds; r++) expect(evals.filter((e) => e.round === r).map((e) => e.epoch)).toEqual([0, 1]);
    expect(evals.every((e) => e.status === "completed" && e.tokens > 0)).toBe(true);
    // Each round draws anew, the same for both libraries.
    const seedOf = async (epoch: number, round: number) => {
      const e = evals.find((x) => x.epoch === epoch && x.round === round)!;
      return (await f.agent("GET", `/evaluations/${e.evaluationId}`)).body.config.seed;
    };
    expect(await seedOf(0, 0)).toBe(runSeed);
    expect(await seedOf(1, 0)).toBe(runSeed);
    expect(await seedOf(0, 1)).toBe(await seedOf(1, 1));
    expect(await seedOf(0, 1)).not.toBe(runSeed);
    if (run.promotion.promoted) expect(d.interval[0]).toBeGreaterThan(0);
    else expect(run.promotion.reason).toMatch(/not sure|not better/);
  });

  it("`best` chooses the epoch on validation, stops after `patience` epochs without gain there, and is judged once on holdout", async () => {
    const f = await fixture(VALIDATION);
    const q = captureQueues();
    let batches = 0;
    // The first update teaches a good lesson; every later one adds a lesson that spoils holdout answers.
    const batch = (_req: SentRequest) => {
      batches++;
      const text = batches === 1 ? "Work the sum out twice before answering." : `Trust the first number that comes to mind (${batches}).`;
      return { reasoning: "scripted", operations: [{ op: "add", targets: [], text, reason: "scripted" }] };
    };
    const policy = (task: string, seed: number, prompt: string) =>
      evaluated(task) ? (prompt.includes("Trust the first") ? false : prompt.includes("twice") ? true : seed % 2 === 0) : mixed(seed);
    practiceLlm({ policy, batch });
    const runId = await startRun(f, { epochs: 8, batchSize: 2, groupSize: 4, seed: 3, promote: "best", patience: 2 });
    const run = await finish(f, runId, q);

    expect(run.status).toBe("completed");
    expect(run.stoppedEarly).toMatch(/no validation improvement for 2 epoch/);
    const trained = new Set(run.trainReward.map((s: { epoch: number }) => s.epoch)).size;
    expect(trained).toBeLessThan(8);
    type Ev = { epoch: number; split: string; round: number; holdoutAccuracy: number };
    const validation = (run.evaluations as Ev[]).filter((e) => e.split === "validation");
    expect(validation.map((e) => e.epoch)).toEqual([0, 1, 2, 3]);
    expect(validation[1]!.holdoutAccuracy).toBe(1);
    // The held-out split judges only the starting library and the chosen one (with more draws while undecided).
    expect(new Set((run.evaluations as Ev[]).filter((e) => e.split === "holdout").map((e) => e.epoch))).toEqual(new Set([0, 1]));
    expect(run.promotion).toMatchObject({
      promoted: true,
      epoch: 1,
      decision: { verdict: "better", split: "holdout", candidateEpoch: 1, selection: { split: "validation", epoch: 1, accuracy: 1 } },
    });
    expect(await activeTexts(f)).toEqual(["Work the sum out twice before answering."]);
  });

  it("holds the run's library to maxExperiences by archiving the least useful lessons", async () => {
    const f = await fixture();
    const q = captureQueues();
    let n = 0;
    const batch = (req: SentRequest) => {
      expect(req.prompt).toMatch(/may hold at most 2/);
      const texts = proposalsIn(req.prompt).map(() => `Lesson number ${++n}: check units before answering.`);
      return {
        reasoning: "adds all",
        operations: [...texts, `Lesson number ${++n}: restate the question.`].map((text) => ({
          op: "add",
          targets: [],
          text,
          reason: "new",
        })),
      };
    };
    practiceLlm({ batch });
    const runId = await startRun(f, { epochs: 3, batchSize: 1, groupSize: 4, seed: 11, maxExperiences: 2, promote: "always" });
    const run = await finish(f, runId, q);
    expect(run.status).toBe("completed");
    const curve = (await f.agent("GET", `/practice-runs/${runId}/curve`)).body;
    expect(curve.epochs).toEqual([]);
    for (const s of curve.steps) expect(s.librarySize).toBeLessThanOrEqual(2);
    const steps = (await f.agent("GET", `/practice-runs/${runId}/steps`)).body.items as { n: number }[];
    const details = await Promise.all(steps.map((s) => f.agent("GET", `/practice-runs/${runId}/steps/${s.n}`)));
    const capped = details
      .flatMap((d) => d.body.diff as { op: string; reason?: string }[])
      .filter((c) => c.reason?.startsWith("library cap"));
    expect(capped.length).toBeGreaterThan(0);
    expect(n).toBeGreaterThan(2);
    expect((await activeTexts(f)).length).toBeLessThanOrEqual(2);
  });

  it("defaults to gate only with a holdout split, and refuses settings it cannot honour", async () => {
    const f = await fixture();
    practiceLlm();
    const noHoldout = await practiceFixture(TRAIN.map(({ split: _s, ...t }) => t));
    const cases: [typeof f, Record<string, unknown>, string][] = [
      [f, { promote: "best", evaluate: { every: "end" } }, "evaluate.every"],
      [f, { promote: "best", evaluate: { split: "validation" } }, "evaluate.split"],
      [f, { evaluate: { maxSamples: 64 } }, "evaluate.maxSamples"],
      [noHoldout, { promote: "gate" }, "promote"],
      [noHoldout, { evaluate: { split: "holdout" } }, "evaluate.split"],
      [f, { promote: "sometimes" }, "promote"],
      [f, { maxExperiences: 0 }, "maxExperiences"],
    ];
    for (const [fx, body, path] of cases) {
      const r = await fx.agent("POST", "/practice-runs", { datasetId: fx.datasetId, policy: { kind: "llm" }, ...body });
      expect(r.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(JSON.stringify(r.body.errors ?? r.body)).toContain(path);
    }
    expect((await f.agent("GET", "/practice-runs")).body.items).toEqual([]);
    const captured = captureQueues();
    const plain = await startRun(noHoldout, { epochs: 1 });
    expect((await noHoldout.agent("GET", `/practice-runs/${plain}`)).body.config).toMatchObject({ promote: "always", evaluate: null });
    const gated = await startRun(f, { epochs: 1 });
    expect((await f.agent("GET", `/practice-runs/${gated}`)).body.config).toMatchObject({
      promote: "gate",
      evaluate: { split: "holdout", samples: 1, every: "epoch", maxSamples: 4 },
      validationFraction: 0.25,
    });
    expect(captured.queued.length).toBeGreaterThan(0);
  });
});
