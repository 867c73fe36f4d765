import { describe, expect, it } from "vitest";
import type { TaskRewards } from "../../src/core/evaluation/decision";
import { gateStep, shouldStopEarly, type GateSettings, type RunEvalResult } from "../../src/core/practice/gate";
import { enforceCap, type RunExperience } from "../../src/core/practice/plan";
import { seededRandom } from "../../src/core/practice/rng";

const tasksOf = (rows: (number | null)[][]): TaskRewards[] => rows.map((rewards, i) => ({ taskId: `t${i}`, rewards }));
const r = (epoch: number, accuracy: number | null, status: RunEvalResult["status"] = "completed") => ({ epoch, status, accuracy });

// ---------------------------------------------------------------- simulated gated runs

/**
 * A simulated held-out set: each task has its own difficulty (the chance a sample is right). The
 * worst case for false promotions is a lesson that changes nothing but the draws, so that
 * identical libraries score independently (an inert lesson that shifts the sampling). `never`
 * tasks are never solved by either side (the practice world's unsolved families): mostly ties,
 * which the percentile bootstrap alone reads too optimistically.
 */
function simulate(opts: { tasks: number; samples: number; p0: number; p1: number; maxRounds: number; never?: number }) {
  return (runSeed: number) => {
    const random = seededRandom(runSeed);
    const difficulty = Array.from({ length: opts.tasks }, () => random());
    const evals: RunEvalResult[] = [];
    const evaluate = (epoch: number, round: number) => {
      const p = epoch === 0 ? opts.p0 : opts.p1;
      const rows = difficulty.map((d, t) =>
        Array.from({ length: opts.samples }, (): number =>
          t >= opts.tasks - (opts.never ?? 0) ? 0 : random() < Math.min(1, Math.max(0, p + (d - 0.5) * 0.6)) ? 1 : 0,
        ),
      );
      const acc = rows.reduce((n, row) => n + row.reduce((a, b) => a + b, 0) / row.length, 0) / rows.length;
      evals.push({
        epoch,
        split: "holdout",
        round,
        status: "completed",
        accuracy: acc,
        interval: null,
        tasks: tasksOf(rows),
        tokens: 100,
        costUsd: 0,
      });
    };
    evaluate(0, 0);
    evaluate(2, 0);
    const settings: GateSettings = {
      mode: "gate",
      minGain: 0,
      seed: runSeed,
      judge: "holdout",
      select: "validation",
      finalEpoch: 2,
      maxRounds: opts.maxRounds,
      roomFor: () => true,
    };
    for (;;) {
      const step = gateStep(evals, settings);
      if (step.kind === "decide") return { choice: step.choice, evals };
      if (step.kind !== "evaluate") throw new Error("a simulated evaluation never waits");
      for (const e of step.evals) evaluate(e.epoch, e.round);
    }
  };
}

describe("the gate on simulated runs", () => {
  it("A/A: identical libraries are promoted in at most 5% of 300 runs (the point-estimate rule: about half)", () => {
    for (const [tasks, samples, maxRounds, never] of [
      [18, 4, 0, 0],
      [18, 1, 1, 0],
      [18, 2, 3, 0],
      [20, 4, 3, 12],
    ] as const) {
      const run = simulate({ tasks, samples, p0: 0.45, p1: 0.45, maxRounds, never });
      let promoted = 0;
      let pointEstimate = 0;
      for (let i = 0; i < 300; i++) {
        const { choice, evals } = run(1000 + i);
        if (choice.promote) promoted++;
        if (evals[1]!.accuracy! >= evals[0]!.accuracy!) pointEstimate++;
      }
      expect(promoted / 300, `${tasks} tasks (${never} never solved), samples ${samples}, rounds ${maxRounds}`).toBeLessThanOrEqual(0.05);
      expect(pointEstimate / 300).toBeGreaterThan(0.4);
    }
  });

  it("power: a library that lifts accuracy from about 0.2 to about 0.9 is promoted in at least 95% of 200 runs", () => {
    const run = simulate({ tasks: 18, samples: 1, p0: 0.2, p1: 0.9, maxRounds: 1 });
    let promoted = 0;
    let gain = 0;
    for (let i = 0; i < 200; i++) {
      const { choice } = run(5000 + i);
      if (choice.promote) {
        promoted++;
        gain += choice.decision!.difference!;
      }
    }
    expect(promoted / 200).toBeGreaterThanOrEqual(0.95);
    expect(gain / promoted).toBeGreaterThan(0.5);
  });

  it("a harmful library is never promoted", () => {
    const run = simulate({ tasks: 18, samples: 2, p0: 0.6, p1: 0.4, maxRounds: 2 });
    for (let i = 0; i < 100; i++) expect(run(9000 + i).choice.promote).toBe(false);
  });
});

// ---------------------------------------------------------------- the gate's steps

const ev = (
  epoch: number,
  split: RunEvalResult["split"],
  round: number,
  rows: number[][] | null,
  status: RunEvalResult["status"] = "completed",
) => ({
  epoch,
  split,
  round,
  status,
  accuracy: rows ? rows.reduce((n, r) => n + r.reduce((a, b) => a + b, 0) / r.length, 0) / rows.length : null,
  interval: null,
  tasks: rows ? tasksOf(rows) : null,
  tokens: 50,
  costUsd: 0,
});
const settings = (over: Partial<GateSettings> = {}): GateSettings => ({
  mode: "gate",
  minGain: 0,
  seed: 7,
  judge: "holdout",
  select: "validation",
  finalEpoch: 1,
  maxRounds: 1,
  roomFor: () => true,
  ...over,
});
const rows = (n: number, right: (i: number) => boolean) => Array.from({ length: n }, (_, i) => [right(i) ? 1 : 0]);

describe("gateStep", () => {
  it("gate: promotes a clear gain with its evidence, and keeps a loss without drawing more", () => {
    const start = ev(
      0,
      "holdout",
      0,
      rows(10, (i) => i < 2),
    );
    const step = gateStep(
      [
        start,
        ev(
          1,
          "holdout",
          0,
          rows(10, (i) => i < 9),
        ),
      ],
      settings(),
    );
    expect(step).toMatchObject({
      kind: "decide",
      choice: {
        promote: true,
        epoch: 1,
        decision: { verdict: "better", tasks: 10, samples: 1, rounds: 1, candidateEpoch: 1, split: "holdout" },
      },
    });
    if (step.kind === "decide") expect(step.choice.reason).toMatch(/^gate passed: holdout accuracy 90\.0%.*candidate − incumbent \+0\.700/);
    const worse = gateStep(
      [
        start,
        ev(
          1,
          "holdout",
          0,
          rows(10, () => false),
        ),
      ],
      settings(),
    );
    expect(worse).toMatchObject({ kind: "decide", choice: { promote: false, decision: { verdict: "not-better" } } });
  });

  it("gate: when undecided draws another paired round of both libraries, then keeps the incumbent if still unsure", () => {
    const start = ev(
      0,
      "holdout",
      0,
      rows(12, (i) => i % 2 === 0),
    );
    const final = ev(
      1,
      "holdout",
      0,
      rows(12, (i) => i % 2 === 0 || i === 1 || i === 3),
    );
    expect(gateStep([start, final], settings())).toEqual({
      kind: "evaluate",
      evals: [
        { epoch: 0, split: "holdout", round: 1 },
        { epoch: 1, split: "holdout", round: 1 },
      ],
    });
    expect(gateStep([start, final], settings({ roomFor: () => false }))).toMatchObject({
      kind: "decide",
      choice: { promote: false, decision: { verdict: "undecided" } },
    });
    const pending = [start, final, ev(0, "holdout", 1, null, "running"), ev(1, "holdout", 1, null, "pending")];
    expect(gateStep(pending, settings())).toEqual({ kind: "wait" });
    const again = [
      start,
      final,
      ev(
        0,
        "holdout",
        1,
        rows(12, (i) => i % 2 === 1),
      ),
      ev(
        1,
        "holdout",
        1,
        rows(12, (i) => i % 2 === 1),
      ),
    ];
    const step = gateStep(again, settings());
    expect(step).toMatchObject({ kind: "decide", choice: { promote: false, decision: { rounds: 2, samples: 2, rollouts: 48, looks: 2 } } });
    if (step.kind === "decide") expect(step.choice.reason).toMatch(/not sure/);
  });

  it("gate: stays closed without an evaluation of the final library or of the start", () => {
    const start = ev(
      0,
      "holdout",
      0,
      rows(10, () => false),
    );
    expect(gateStep([start], settings({ finalEpoch: null }))).toMatchObject({ kind: "decide", choice: { promote: false } });
    expect(
      gateStep(
        [
          ev(0, "holdout", 0, null, "failed"),
          ev(
            1,
            "holdout",
            0,
            rows(10, () => true),
          ),
        ],
        settings(),
      ),
    ).toMatchObject({
      kind: "decide",
      choice: { promote: false },
    });
  });

  it("best: chooses on validation, asks for the chosen library's held-out evaluation, and is judged there", () => {
    const val = [
      ev(
        0,
        "validation",
        0,
        rows(8, (i) => i < 2),
      ),
      ev(
        1,
        "validation",
        0,
        rows(8, (i) => i < 7),
      ),
      ev(
        2,
        "validation",
        0,
        rows(8, (i) => i < 5),
      ),
    ];
    const startHoldout = ev(
      0,
      "holdout",
      0,
      rows(10, (i) => i < 2),
    );
    const s = settings({ mode: "best", finalEpoch: 2 });
    expect(gateStep([...val, startHoldout], s)).toEqual({ kind: "evaluate", evals: [{ epoch: 1, split: "holdout", round: 0 }] });
    const step = gateStep(
      [
        ...val,
        startHoldout,
        ev(
          1,
          "holdout",
          0,
          rows(10, (i) => i < 9),
        ),
      ],
      s,
    );
    expect(step).toMatchObject({
      kind: "decide",
      choice: { promote: true, epoch: 1, decision: { selection: { split: "validation", epoch: 1, accuracy: 7 / 8 }, candidateEpoch: 1 } },
    });
    // Chosen on validation but no better on held-out tasks: not promoted.
    const flat = gateStep(
      [
        ...val,
        startHoldout,
        ev(
          1,
          "holdout",
          0,
          rows(10, (i) => i < 2),
        ),
      ],
      s,
    );
    expect(flat).toMatchObject({ kind: "decide", choice: { promote: false } });
    // Nothing beat the start on validation: no held-out evaluation is spent.
    const none = gateStep(
      [
        ev(
          0,
          "validation",
          0,
          rows(8, (i) => i < 4),
        ),
        ev(
          1,
          "validation",
          0,
          rows(8, (i) => i < 3),
        ),
        startHoldout,
      ],
      s,
    );
    expect(none).toMatchObject({ kind: "decide", choice: { promote: false, decision: null } });
  });

  it("always and never ignore the evidence; always reports it", () => {
    const evals = [
      ev(
        0,
        "holdout",
        0,
        rows(10, () => true),
      ),
      ev(
        1,
        "holdout",
        0,
        rows(10, () => false),
      ),
    ];
    const always = gateStep(evals, settings({ mode: "always" }));
    expect(always).toMatchObject({ kind: "decide", choice: { promote: true, epoch: null } });
    if (always.kind === "decide") expect(always.choice.reason).toContain("holdout accuracy 0.0%");
    expect(gateStep(evals, settings({ mode: "never" }))).toMatchObject({ kind: "decide", choice: { promote: false } });
  });
});

describe("shouldStopEarly", () => {
  it("counts epochs without gain over the best so far, on the settled prefix only", () => {
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.7), r(2, 0.6), r(3, 0.7)], 2)).toBe(true);
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.7), r(2, 0.6)], 2)).toBe(false);
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.7), r(3, 0.6), r(4, 0.6)], 2)).toBe(false);
    expect(shouldStopEarly([r(0, 0.5), r(1, 0.4)], 1)).toBe(true);
    expect(shouldStopEarly([r(0, 0.5), r(1, null, "failed"), r(2, 0.4)], 1)).toBe(false);
  });
});

describe("enforceCap", () => {
  const e = (id: string, q: number | undefined, touched: number | null): RunExperience => ({
    id,
    text: id,
    lineage: touched === null ? [{ op: "start" }] : [{ op: "add", epoch: 0, step: touched }],
    ...(q === undefined ? {} : { q }),
  });

  it("removes the lowest-utility lessons, oldest first among equals, and keeps the order", () => {
    const lib = [e("a", 0.9, null), e("b", 0.1, null), e("c", undefined, 1), e("d", undefined, 0), e("e", 0.5, null)];
    const out = enforceCap(lib, 3, 0.5);
    expect(out.evicted.map((x) => x.id)).toEqual(["b", "e"]);
    expect(out.library.map((x) => x.id)).toEqual(["a", "c", "d"]);
    expect(enforceCap(lib, 5, 0.5).evicted).toEqual([]);
  });
});
