import { describe, expect, it } from "vitest";
import { accuracyOf, bootstrapInterval, mean, pairedBootstrap } from "../../src/core/evaluation/stats";

/** n task rewards of which the first `right` are 1 and the rest 0. */
const rewards = (n: number, right: number) => Array.from({ length: n }, (_, i) => (i < right ? 1 : 0));
const width = (i: [number, number]) => i[1] - i[0];

describe("bootstrapInterval", () => {
  it("is reproducible with a seed and brackets the mean", () => {
    const values = rewards(20, 13);
    const a = bootstrapInterval(values, { seed: 42 })!;
    expect(bootstrapInterval(values, { seed: 42 })).toEqual(a);
    expect(a[0]).toBeLessThan(0.65);
    expect(a[1]).toBeGreaterThan(0.65);
    expect(a[0]).toBeGreaterThanOrEqual(0);
    expect(a[1]).toBeLessThanOrEqual(1);
  });

  it("narrows with more tasks at the same accuracy", () => {
    const small = bootstrapInterval(rewards(10, 5), { seed: 1 })!;
    const large = bootstrapInterval(rewards(200, 100), { seed: 1 })!;
    expect(width(large)).toBeLessThan(width(small) / 2);
    // Close to the normal approximation 2 × 1.96 × sqrt(p(1−p)/n).
    expect(width(large)).toBeCloseTo(2 * 1.96 * Math.sqrt(0.25 / 200), 1);
  });

  it("collapses to the value when every task scores the same, and is null without tasks", () => {
    expect(bootstrapInterval([0.5, 0.5, 0.5], { seed: 3 })).toEqual([0.5, 0.5]);
    expect(bootstrapInterval([], { seed: 3 })).toBeNull();
  });
});

describe("accuracyOf", () => {
  it("weighs every task the same whatever its sample count, and leaves out unscored tasks", () => {
    const acc = accuracyOf([[1, 1, 1, 0], [0], []], { seed: 5 })!;
    expect(acc.accuracy).toBeCloseTo((0.75 + 0) / 2, 12);
    expect(acc.tasks).toBe(2);
    expect(acc.interval).toEqual([0, 0.75]);
  });
});

describe("pairedBootstrap", () => {
  it("counts tasks won, lost and tied by b and gives the mean difference", () => {
    const a = [1, 0, 0.5, 1, 0];
    const b = [1, 1, 0.5, 0, 1];
    const d = pairedBootstrap(a, b, { seed: 9 })!;
    expect(d.difference).toBeCloseTo(mean(b) - mean(a), 12);
    expect({ won: d.won, lost: d.lost, tied: d.tied }).toEqual({ won: 2, lost: 1, tied: 2 });
    expect(d.interval[0]).toBeLessThanOrEqual(d.difference);
    expect(d.interval[1]).toBeGreaterThanOrEqual(d.difference);
  });

  it("excludes 0 for a clear difference and straddles it for noise; the expanded interval is wider for few tasks", () => {
    const a = rewards(30, 10);
    const better = a.map((x, i) => (i < 25 ? 1 : x));
    const clear = pairedBootstrap(a, better, { seed: 2 })!;
    expect(clear.interval[0]).toBeGreaterThan(0);
    expect(pairedBootstrap(better, a, { seed: 2 })!.interval[1]).toBeLessThan(0);
    const noisy = pairedBootstrap([1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 1, 0], { seed: 2 })!;
    expect(noisy.interval[0]).toBeLessThan(0);
    expect(noisy.interval[1]).toBeGreaterThan(0);
    const few = [0.5, 0, 1, 0.5, 1, 0.5, 0.5, 1];
    const plain = pairedBootstrap(rewards(8, 0), few, { seed: 2 })!;
    const expanded = pairedBootstrap(rewards(8, 0), few, { seed: 2, expanded: true })!;
    expect(expanded.interval[0]).toBeLessThan(plain.interval[0]);
    expect(expanded.interval[1]).toBeGreaterThan(plain.interval[1]);
  });

  it("pairs tasks: a shared difficulty does not widen the interval", () => {
    // Half the tasks are hard for both sides; b is better by 0.2 on every task.
    const a = Array.from({ length: 40 }, (_, i) => (i % 2 ? 0.7 : 0.1));
    const b = a.map((x) => x + 0.2);
    const d = pairedBootstrap(a, b, { seed: 4 })!;
    expect(d.interval[0]).toBeCloseTo(0.2, 12);
    expect(d.interval[1]).toBeCloseTo(0.2, 12);
  });

  it("refuses sides of different lengths and has no result without tasks", () => {
    expect(() => pairedBootstrap([1], [1, 0], { seed: 1 })).toThrow(RangeError);
    expect(pairedBootstrap([], [], { seed: 1 })).toBeNull();
  });
});
