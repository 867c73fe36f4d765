import { describe, expect, it } from "vitest";
import {
  applyPhrase,
  decodeCentroid,
  encodeCentroid,
  evidenceOf,
  MAX_CENTROID_COUNT,
  MAX_PHRASE_WEIGHT,
  MAX_PHRASES,
  phraseMatch,
  phraseOf,
  updateCentroid,
  usageSimilarity,
  USAGE_EVIDENCE,
  type Centroid,
} from "../../src/core/usage-memory";
import { DAY_MS, retention } from "../../src/core/decay";

const unitAxis = (dims: number, i: number) => Float32Array.from({ length: dims }, (_, j) => (j === i ? 1 : 0));

describe("learned phrases", () => {
  it("keep a query's content words, not its function words", () => {
    expect(phraseOf("How do I stop the build from timing out?")).toBe("stop build timing out");
    expect(phraseOf("the of and")).toBeNull();
  });

  it("are bounded: the strongest MAX_PHRASES survive, a repeated reward saturates", () => {
    let p = applyPhrase([], "keep", 1, 0);
    for (let i = 0; i < 10; i++) p = applyPhrase(p, "keep", 1, i);
    expect(p[0]).toMatchObject({ text: "keep", weight: MAX_PHRASE_WEIGHT });
    for (let i = 0; i < 30; i++) p = applyPhrase(p, `flood ${i}`, 1, 100 + i);
    expect(p).toHaveLength(MAX_PHRASES);
    expect(p.map((x) => x.text)).toContain("keep");
    expect(p.map((x) => x.text)).toContain("flood 29");
    expect(p.map((x) => x.text)).not.toContain("flood 0");
  });

  it("weaken with a negative outcome and are forgotten at zero; a negative never creates one", () => {
    let p = applyPhrase([], "a", 1, 0);
    p = applyPhrase(p, "a", -0.5, 1);
    expect(p[0]!.weight).toBeCloseTo(0.5);
    expect(applyPhrase(p, "a", -0.5, 2)).toEqual([]);
    expect(applyPhrase([], "b", -1, 0)).toEqual([]);
  });
});

describe("usage centroid", () => {
  it("is the running mean of the queries, bounded in count", () => {
    let c: Centroid | null = null;
    c = updateCentroid(c, unitAxis(4, 0), 1);
    c = updateCentroid(c, unitAxis(4, 1), 1);
    expect([...c!.vec]).toEqual([0.5, 0.5, 0, 0]);
    expect(c!.n).toBe(2);
    for (let i = 0; i < 100; i++) c = updateCentroid(c, unitAxis(4, 2), 1);
    expect(c!.n).toBe(MAX_CENTROID_COUNT);
    expect(c!.vec[2]).toBeGreaterThan(0.99);
  });

  it("scores the mean cosine to the queries served, so a flood of unrelated queries dilutes it", () => {
    const dims = 64;
    let focused: Centroid | null = null;
    for (let i = 0; i < 5; i++) focused = updateCentroid(focused, unitAxis(dims, 3), 1);
    expect(usageSimilarity(focused!, unitAxis(dims, 3))).toBeCloseTo(1);
    let flooded: Centroid | null = null;
    for (let i = 0; i < 40; i++) flooded = updateCentroid(flooded, unitAxis(dims, i), 1);
    for (let i = 0; i < dims; i++) expect(usageSimilarity(flooded!, unitAxis(dims, i))).toBeLessThan(0.2);
  });

  it("weakens with a negative outcome and disappears at zero", () => {
    let c = updateCentroid(null, unitAxis(4, 0), 1);
    c = updateCentroid(c, unitAxis(4, 0), 1);
    c = updateCentroid(c, unitAxis(4, 0), -1);
    expect(c!.n).toBe(1);
    expect(updateCentroid(c, unitAxis(4, 0), -1)).toBeNull();
    expect(updateCentroid(null, unitAxis(4, 0), -1)).toBeNull();
  });

  it("survives its int8 form, length included", () => {
    const c = updateCentroid(updateCentroid(null, Float32Array.from([0.6, 0.8, 0, 0]), 1), Float32Array.from([0, 0, 1, 0]), 1)!;
    const e = encodeCentroid(c);
    expect(e.code.length).toBe(4 + 4);
    const d = decodeCentroid(e.code, e.norm, e.n);
    for (let i = 0; i < 4; i++) expect(d.vec[i]).toBeCloseTo(c.vec[i]!, 2);
    expect(d.n).toBe(2);
  });
});

describe("learned phrases decay with their memory", () => {
  const params = { baseDecay: 0.1, utilityFactor: 0.8, useBoost: 0.5 };
  const fadeOf = (q: number, now: number) => (at: number) => retention({ lastUsedAt: at, createdAt: at, q, uses: 0 }, now, params);
  const terms = ["refund", "damaged", "parcel"];

  it("match less as time passes since their last reward, slower for a useful memory", () => {
    const p = applyPhrase([], "refund damaged parcel", MAX_PHRASE_WEIGHT, 0);
    const fresh = phraseMatch(terms, p, fadeOf(-1, 0));
    const month = phraseMatch(terms, p, fadeOf(-1, 30 * DAY_MS));
    const usefulMonth = phraseMatch(terms, p, fadeOf(1, 30 * DAY_MS));
    expect(fresh).toBeCloseTo(1, 6);
    expect(month).toBeLessThan(0.1);
    expect(usefulMonth).toBeGreaterThan(month);
    expect(usefulMonth).toBeLessThan(fresh);
  });

  it("are forgotten once faded, and a new reward starts from what is left", () => {
    let p = applyPhrase([], "refund damaged parcel", 1, 0);
    p = applyPhrase(p, "invoice dispute", 1, 60 * DAY_MS, fadeOf(-1, 60 * DAY_MS));
    expect(p.map((x) => x.text)).toEqual(["invoice dispute"]);
    let r = applyPhrase([], "a b", 2, 0);
    r = applyPhrase(r, "a b", 1, 5 * DAY_MS, fadeOf(-1, 5 * DAY_MS));
    expect(r[0]!.weight).toBeCloseTo(2 * Math.exp(-0.5) + 1, 6);
    expect(r[0]!.at).toBe(5 * DAY_MS);
  });

  it("a negative outcome weakens a phrase without touching the others", () => {
    let p = applyPhrase([], "x y", 1, 0);
    p = applyPhrase(p, "u v", 1, 0);
    p = applyPhrase(p, "x y", -0.5, 1);
    expect(p.find((x) => x.text === "x y")!.weight).toBeCloseTo(0.5, 6);
    expect(p.find((x) => x.text === "u v")!.weight).toBe(1);
  });
});

describe("evidence before a usage association counts", () => {
  it("one rewarded retrieval teaches a phrase and a centroid that move nothing; a second makes them count", () => {
    const terms = ["refund", "damaged", "parcel"];
    const once = applyPhrase([], "refund damaged parcel", 1, 0);
    expect(phraseMatch(terms, once)).toBe(0);
    expect(phraseMatch(terms, applyPhrase(once, "refund damaged parcel", 1, 1))).toBeCloseTo(1, 6);
    const axis = unitAxis(8, 2);
    const c1 = updateCentroid(null, axis, 1)!;
    expect(usageSimilarity(c1, axis)).toBe(0);
    expect(usageSimilarity(updateCentroid(c1, axis, 1)!, axis)).toBeCloseTo(1, 6);
    expect(evidenceOf(1.5)).toBeCloseTo(1 / (USAGE_EVIDENCE - 1) / 2, 6);
  });
});
