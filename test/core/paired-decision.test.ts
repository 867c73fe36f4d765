import { describe, expect, it } from "vitest";
import { decide, joinRounds, MIN_PAIRED_TASKS, pairSamples, type TaskRewards } from "../../src/core/evaluation/decision";
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

  it(`needs ${MIN_PAIRED_TASKS} paired tasks: five tasks that all improved do not decide`, () => {
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
});
