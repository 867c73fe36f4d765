import { describe, expect, it } from "vitest";
import { defaultAgentConfig } from "../../src/core/agent-config";
import { EpisodeOutcomeSchema, convergence, emaUpdate, normaliseQ, qStats, rewardFor } from "../../src/core/q-learning";

const { rewardMapping: M, alpha: ALPHA, defaultQ } = defaultAgentConfig();

describe("rewardFor", () => {
  it("maps outcomes with the default table", () => {
    expect(M).toEqual({ success: 1, failure: -1, partial: 0.3, timeout: -0.5 });
    expect(rewardFor({ outcome: "success" }, M)).toBe(1);
    expect(rewardFor({ outcome: "failure" }, M)).toBe(-1);
    expect(rewardFor({ outcome: "partial" }, M)).toBe(0.3);
    expect(rewardFor({ outcome: "timeout" }, M)).toBe(-0.5);
  });

  it("multiplies by quality", () => {
    expect(rewardFor({ outcome: "partial", quality: 0.5 }, M)).toBeCloseTo(0.15, 12);
    expect(rewardFor({ outcome: "failure", quality: 0.25 }, M)).toBe(-0.25);
    expect(rewardFor({ reward: 0.8, quality: 0.5 }, M)).toBeCloseTo(0.4, 12);
    expect(rewardFor({ outcome: "success", quality: 0 }, M)).toBe(0);
  });

  it("prefers an explicit reward over the outcome", () => {
    expect(rewardFor({ outcome: "failure", reward: 0.2 }, M)).toBe(0.2);
    expect(rewardFor({ outcome: "success", reward: 0 }, M)).toBe(0);
  });

  it("clamps to [-1, 1]", () => {
    expect(rewardFor({ reward: 2 }, M)).toBe(1);
    expect(rewardFor({ reward: -3, quality: 0.5 }, M)).toBe(-1);
  });

  it("uses a custom mapping", () => {
    const mapping = { success: 0.8, failure: -0.6, partial: 0.5, timeout: -2 };
    expect(rewardFor({ outcome: "success" }, mapping)).toBe(0.8);
    expect(rewardFor({ outcome: "partial", quality: 0.4 }, mapping)).toBeCloseTo(0.2, 12);
    expect(rewardFor({ outcome: "timeout" }, mapping)).toBe(-1);
  });

  it("throws without an outcome or reward, or on invalid numbers", () => {
    expect(() => rewardFor({}, M)).toThrow(TypeError);
    expect(() => rewardFor({ quality: 0.5 }, M)).toThrow(TypeError);
    expect(() => rewardFor({ reward: Number.NaN }, M)).toThrow(RangeError);
    expect(() => rewardFor({ outcome: "success", quality: 1.5 }, M)).toThrow(RangeError);
    expect(() => rewardFor({ outcome: "success", quality: -0.1 }, M)).toThrow(RangeError);
  });

  it("validates outcomes with zod", () => {
    expect(EpisodeOutcomeSchema.parse("timeout")).toBe("timeout");
    expect(EpisodeOutcomeSchema.safeParse("crash").success).toBe(false);
  });
});

describe("emaUpdate", () => {
  it("moves Q a fraction α towards the reward", () => {
    expect(defaultQ).toBe(0.5);
    expect(ALPHA).toBe(0.1);
    expect(emaUpdate(0.5, 1, 0.1)).toBeCloseTo(0.55, 12);
    expect(emaUpdate(0.5, -1, ALPHA)).toBeCloseTo(0.35, 12); // 0.5 + 0.1·(−1.5)
    expect(emaUpdate(0.55, 1, ALPHA)).toBeCloseTo(0.595, 12);
    expect(emaUpdate(0.2, 0.2, 0.5)).toBe(0.2);
    expect(emaUpdate(0.2, 1, 1)).toBe(1);
  });

  it("approaches a constant reward geometrically", () => {
    // After n successes from 0.5: 1 − 0.5·0.9ⁿ
    let q = defaultQ;
    for (let i = 0; i < 10; i++) q = emaUpdate(q, 1, ALPHA);
    expect(q).toBeCloseTo(1 - 0.5 * 0.9 ** 10, 12);
  });
});

describe("normaliseQ", () => {
  it("maps [-1, 1] onto [0, 1] and clamps outside", () => {
    expect(normaliseQ(-1)).toBe(0);
    expect(normaliseQ(0)).toBe(0.5);
    expect(normaliseQ(0.5)).toBe(0.75);
    expect(normaliseQ(1)).toBe(1);
    expect(normaliseQ(3)).toBe(1);
    expect(normaliseQ(-2)).toBe(0);
  });
});

describe("convergence", () => {
  it("averages |ΔQ| over the last n updates", () => {
    expect(convergence([0.1, -0.2, 0.3, -0.4], 2)).toBeCloseTo(0.35, 12);
    expect(convergence([0.1, -0.2, 0.3, -0.4], 10)).toBeCloseTo(0.25, 12);
    expect(convergence([0.1, -0.2, 0.3, -0.4], 1)).toBeCloseTo(0.4, 12);
  });

  it("is 0 with no deltas or n <= 0", () => {
    expect(convergence([], 5)).toBe(0);
    expect(convergence([0.3], 0)).toBe(0);
  });
});

describe("qStats", () => {
  it("computes count, mean, population std and a histogram", () => {
    const s = qStats([-1, 0, 0.5, 1], 4);
    expect(s.count).toBe(4);
    expect(s.mean).toBeCloseTo(0.125, 12);
    // deviations −1.125, −0.125, 0.375, 0.875 → variance 2.1875 / 4
    expect(s.std).toBeCloseTo(Math.sqrt(0.546875), 12);
    expect(s.histogram).toEqual([
      { from: -1, to: -0.5, count: 1 },
      { from: -0.5, to: 0, count: 0 },
      { from: 0, to: 0.5, count: 1 },
      { from: 0.5, to: 1, count: 2 },
    ]);
  });

  it("uses 10 buckets by default with clean bounds", () => {
    const s = qStats([0.5, 0.55, -0.05]);
    expect(s.histogram).toHaveLength(10);
    expect(s.histogram[3]!.from).toBe(-0.4);
    expect(s.histogram[9]!.to).toBe(1);
    expect(s.histogram.map((b) => b.count)).toEqual([0, 0, 0, 0, 1, 0, 0, 2, 0, 0]);
  });

  it("puts out-of-range values in the end buckets", () => {
    const s = qStats([-5, 5], 2);
    expect(s.histogram.map((b) => b.count)).toEqual([1, 1]);
  });

  it("handles no values", () => {
    const s = qStats([], 2);
    expect(s).toEqual({
      count: 0,
      mean: 0,
      std: 0,
      histogram: [
        { from: -1, to: 0, count: 0 },
        { from: 0, to: 1, count: 0 },
      ],
    });
  });
});
