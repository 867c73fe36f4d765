import { describe, expect, it } from "vitest";
import {
  contributions,
  describeReranker,
  emptyReranker,
  featuresOf,
  FEATURES,
  MIN_UPDATES,
  rerankerActive,
  train,
} from "../../src/core/reranker";

const f = (usage: number, sim: number) => featuresOf({ sim, usage, lexical: 0, learned: 0, q: 0, lastUsedAt: null, kind: "experience" }, 0);

describe("re-ranker", () => {
  it("stays out of the way until it has seen MIN_UPDATES rewards", () => {
    let s = emptyReranker();
    for (let i = 0; i < MIN_UPDATES - 1; i++)
      s = train(s, [
        { f: f(0.9, 0.3), label: 1 },
        { f: f(0, 0.5), label: 0 },
      ]);
    expect(rerankerActive(s)).toBe(false);
    expect(contributions(s, [f(0.9, 0.3), f(0, 0.5)])).toBeNull();
    s = train(s, [
      { f: f(0.9, 0.3), label: 1 },
      { f: f(0, 0.5), label: 0 },
    ]);
    expect(rerankerActive(s)).toBe(true);
    expect(s.updates).toBe(MIN_UPDATES);
  });

  it("learns which signal predicts a cited success and moves those candidates up", () => {
    let s = emptyReranker();
    for (let i = 0; i < 60; i++) {
      s = train(s, [
        { f: f(0.8, 0.2), label: 1 },
        { f: f(0, 0.6), label: 0 },
        { f: f(0.1, 0.4), label: 0 },
      ]);
    }
    expect(s.weights[FEATURES.indexOf("usageSim")]).toBeGreaterThan(0);
    const c = contributions(s, [f(0, 0.6), f(0.7, 0.3)])!;
    expect(c[1]).toBeGreaterThan(c[0]!);
  });

  it("needs both positives and negatives before acting", () => {
    let s = emptyReranker();
    for (let i = 0; i < MIN_UPDATES + 5; i++) s = train(s, [{ f: f(0.5, 0.5), label: 1 }]);
    expect(rerankerActive(s)).toBe(false);
  });

  it("features are bounded whatever BM25 says", () => {
    const x = featuresOf({ sim: 0.5, usage: 0, lexical: 1e6, learned: 3, q: -0.2, lastUsedAt: 0, kind: "case" }, 0);
    expect(x).toHaveLength(FEATURES.length);
    for (const v of x) expect(Math.abs(v)).toBeLessThanOrEqual(1);
    expect(x[FEATURES.indexOf("recency")]).toBe(1);
    expect(x[FEATURES.indexOf("isCase")]).toBe(1);
  });
});

describe("re-ranker monotone in how well an item matches", () => {
  it("rewards that always cite the least similar item never teach it to prefer dissimilar items", () => {
    let s = emptyReranker();
    const g = (sim: number, lexical: number) =>
      featuresOf({ sim, usage: 0, lexical, learned: 0, q: 0, lastUsedAt: null, kind: "experience" }, 0);
    for (let i = 0; i < 240; i++)
      s = train(s, [
        { f: g(0.05, 0), label: 1 },
        { f: g(0.6, 6), label: 0 },
        { f: g(0.5, 3), label: 0 },
      ]);
    expect(rerankerActive(s)).toBe(true);
    for (const name of ["vectorSim", "textBm25", "usageSim", "learnedPhrase", "whenSim", "whenBm25"] as const)
      expect(s.weights[FEATURES.indexOf(name)], name).toBeGreaterThanOrEqual(0);
    const c = contributions(s, [g(0.05, 0), g(0.3, 1), g(0.6, 6)])!;
    expect(c[1]).toBeGreaterThanOrEqual(c[0]!);
    expect(c[2]).toBeGreaterThanOrEqual(c[1]!);
  });

  it("reads a negative similarity weight saved before as zero", () => {
    const saved = { ...emptyReranker(), updates: MIN_UPDATES, positives: 5, negatives: 5 };
    saved.weights[FEATURES.indexOf("vectorSim")] = -1.01;
    saved.weights[FEATURES.indexOf("textBm25")] = -2.02;
    const c = contributions(saved, [f(0, 0.1), f(0, 0.9)])!;
    expect(c[0]).toBe(c[1]);
    expect(describeReranker(saved).weights).toMatchObject({ vectorSim: 0, textBm25: 0 });
  });
});
