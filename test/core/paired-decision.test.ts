import { describe, expect, it } from "vitest";
import {
  decide,
  joinRounds,
  lookBudget,
  minPairedTasks,
  pairSamples,
  signFlipP,
  type TaskRewards,
} from "../../src/core/evaluation/decision";
import { expandedTail, normalUpperTail, tQuantileUpper } from "../../src/core/evaluation/quantiles";
import { seededRandom } from "../../src/core/practice/rng";

const tasksOf = (rows: (number | null)[][]): TaskRewards[] => rows.map((rewards, i) => ({ taskId: `t${i}`, rewards }));

describe("quantiles", () => {
  it("match the tables: normal tails, t quantiles, and the expanded tail tending to the plain one", () => {
    expect(normalUpperTail(1.959964)).toBeCloseTo(0.025, 6);
    expect(normalUpperTail(-1)).toBeCloseTo(0.841345, 5);
    expect(tQuantileUpper(0.025, 5)).toBeCloseTo(2.570582, 4);
    expect(tQuantileUpper(0.025, 17)).toBeCloseTo(2.109816, 4);
    expect(expandedTail(6, 0.95)).toBeLessThan(0.005);
    expect(expandedTail(10_000, 0.95)).toBeCloseTo(0.025, 3);
  });
});

describe("pairSamples", () => {
  it("pairs sample s with sample s of the same task, leaving out what only one side scored", () => {
    const inc = [
      { taskId: "a", rewards: [1, 0, null] },
      { taskId: "b", rewards: [0] },
      { taskId: "c", rewards: [1] },
    ];
    const cand = [
      { taskId: "b", rewards: [1, 1] },
      { taskId: "a", rewards: [1, 1, 1] },
    ];
    expect(pairSamples(inc, cand)).toEqual([
      { taskId: "a", incumbent: [1, 0], candidate: [1, 1] },
      { taskId: "b", incumbent: [0], candidate: [1] },
    ]);
    const joined = joinRounds([pairSamples(inc, cand), pairSamples([{ taskId: "a", rewards: [0] }], [{ taskId: "a", rewards: [1] }])]);
    expect(joined[0]).toEqual({ taskId: "a", incumbent: [1, 0, 0], candidate: [1, 1, 1] });
  });
});

describe("decide", () => {
  const pairsOf = (inc: number[][], cand: number[][]) => pairSamples(tasksOf(inc), tasksOf(cand));

  it("keeps the incumbent on a tie and when the lower bound only reaches minGain", () => {
    const same = Array.from({ length: 20 }, (_, i) => [i % 2, 1 - (i % 2)]);
    const tie = decide(pairsOf(same, same), { minGain: 0, seed: 1 });
    expect(tie).toMatchObject({ verdict: "not-better", difference: 0, interval: [0, 0], tasks: 20, samples: 2, rollouts: 80, tied: 20 });
    // Every task gains exactly 0.5: the interval is [0.5, 0.5], not above a minGain of 0.5.
    const half = decide(
      pairsOf(
        same.map(() => [0, 0]),
        same.map(() => [1, 0]),
      ),
      { minGain: 0.5, seed: 1 },
    );
    expect(half.interval).toEqual([0.5, 0.5]);
    expect(half.verdict).toBe("not-better");
    expect(
      decide(
        pairsOf(
          same.map(() => [0, 0]),
          same.map(() => [1, 0]),
        ),
        { minGain: 0.4, seed: 1 },
      ).verdict,
    ).toBe("better");
  });

  it("needs 6 paired tasks at 95% (8 when 4 looks share it): five tasks that all improved do not decide", () => {
    expect(minPairedTasks(0.95)).toBe(6);
    expect(minPairedTasks(1 - 0.05 / 4)).toBe(8);
    expect([lookBudget(5, 4), lookBudget(6, 4), lookBudget(7, 4), lookBudget(8, 4), lookBudget(100, 4)]).toEqual([1, 1, 3, 4, 4]);
    const five = decide(pairsOf([[0], [0], [0], [0], [0]], [[1], [1], [1], [1], [1]]), { minGain: 0, seed: 3 });
    expect(five.verdict).toBe("not-better");
    expect(five.difference).toBe(1);
    const six = decide(pairsOf([[0], [0], [0], [0], [0], [0]], [[1], [1], [1], [1], [1], [0.5]]), { minGain: 0, seed: 3 });
    expect(six.verdict).toBe("better");
  });

  it("is undecided when the interval straddles minGain, and a share of the error rate per look widens it", () => {
    const r = seededRandom(5);
    const inc = Array.from({ length: 12 }, () => [r() < 0.5 ? 1 : 0]);
    const cand = inc.map(([x], i) => [i < 4 ? 1 : x!]);
    const once = decide(pairsOf(inc, cand), { minGain: 0, seed: 2 });
    const thrice = decide(pairsOf(inc, cand), { minGain: 0, seed: 2, looks: 3 });
    expect(thrice.level).toBeCloseTo(1 - 0.05 / 3, 12);
    expect(thrice.interval![0]).toBeLessThanOrEqual(once.interval![0]);
    expect(thrice.rule).toContain("shared among 3 looks");
    expect(decide(pairsOf([[1], [0]], [[0], [1]]), { minGain: 0, seed: 1 }).verdict).toBe("not-better");
    expect(decide([], { minGain: 0, seed: 1 })).toMatchObject({ verdict: "not-better", difference: null, tasks: 0 });
  });

  it("the sign-flip test is exact for few differing tasks, ignores ties and samples many (seeded)", () => {
    expect(signFlipP([1, 1, 1], 0, 1)).toBe(1 / 8);
    expect(signFlipP([0.5, -0.5, 0, 0], 0, 1)).toBe(3 / 4);
    expect(signFlipP([0, 0], 0, 1)).toBe(1);
    expect(signFlipP([0.6, 0.6], 0.1, 1)).toBe(1 / 4);
    const many = Array.from({ length: 30 }, (_, i) => (i % 3 ? 0.5 : -0.25));
    expect(signFlipP(many, 0, 7)).toBe(signFlipP(many, 0, 7));
    expect(signFlipP(many, 0, 7)).toBeLessThan(0.01);
    expect(signFlipP(Array(30).fill(1), 0, 7)).toBe(1 / 20_001);
  });

  it("holds back a lopsided gain the bootstrap alone would pass: most tasks tie, the rest lean one way", () => {
    // Identical libraries from bench:gate: 12 of 20 tasks never solved by either, 8 noisy ones at 4 samples.
    const inc = [
      [0, 0, 0, 0],
      [0, 0, 1, 1],
      [1, 0, 1, 0],
      [0, 0, 1, 1],
      [0, 1, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 1],
    ];
    const cand = [
      [0, 1, 1, 0],
      [0, 1, 1, 0],
      [1, 1, 1, 1],
      [1, 0, 1, 1],
      [1, 1, 1, 0],
      [0, 0, 0, 1],
      [1, 0, 1, 1],
      [0, 1, 0, 0],
    ];
    const never = Array.from({ length: 12 }, () => [0, 0, 0, 0]);
    const d = decide(pairsOf([...inc, ...never], [...cand, ...never]), { minGain: 0, seed: 109, looks: 4 });
    expect(d.interval![0]).toBeGreaterThan(0);
    expect(d.p).toBeGreaterThan((1 - d.level) / 2);
    expect(d.verdict).toBe("undecided");
  });
});
