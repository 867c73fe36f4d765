import { describe, expect, it } from "vitest";
import { defaultAgentConfig } from "../../src/core/agent-config";
import { discriminativeTerms, ftsMatchOf, ftsTerms } from "../../src/core/lexical";
import { fuseRanks, PhaseSchema, rank, zScores, type Candidate } from "../../src/core/scoring";

const params = (lambda: number, over: Partial<{ k1: number; k2: number; threshold: number }> = {}) => ({
  lambda,
  k1: 20,
  k2: 5,
  threshold: 0.3,
  ...over,
});

describe("zScores", () => {
  it("uses the population standard deviation", () => {
    // mean 2, population variance 2/3
    const z = zScores([1, 2, 3]);
    expect(z[0]).toBeCloseTo(-1 / Math.sqrt(2 / 3), 10);
    expect(z[1]).toBeCloseTo(0, 10);
    expect(z[2]).toBeCloseTo(1 / Math.sqrt(2 / 3), 10);
  });

  it("returns zeros for a single value or zero variance, and [] for none", () => {
    expect(zScores([0.7])).toEqual([0]);
    expect(zScores([0.1, 0.1, 0.1])).toEqual([0, 0, 0]);
    // 0.1+0.2 and 0.3 differ in the last bit; that is not variance worth ranking on.
    expect(zScores([0.1 + 0.2, 0.3])).toEqual([0, 0]);
    expect(zScores([])).toEqual([]);
  });
});

describe("rank", () => {
  // sims [0.9, 0.6, 0.3]: mean 0.6, std √0.06 → simZ [√1.5, 0, −√1.5]
  // qs   [0.0, 0.9, 0.3]: mean 0.4, std √0.14 → qZ [−0.4/√0.14, 0.5/√0.14, −0.1/√0.14]
  const three: Candidate[] = [
    { id: "a", sim: 0.9, q: 0.0 },
    { id: "b", sim: 0.6, q: 0.9 },
    { id: "c", sim: 0.3, q: 0.3 },
  ];
  const sZ = Math.sqrt(1.5);
  const qs = Math.sqrt(0.14);

  it("matches a hand-computed example at λ = 0.5", () => {
    const r = rank(three, params(0.5));
    expect(r.map((x) => x.id)).toEqual(["b", "a", "c"]);
    const [b, a, c] = r;
    expect(a!.simZ).toBeCloseTo(sZ, 10);
    expect(a!.qZ).toBeCloseTo(-0.4 / qs, 10);
    expect(b!.simZ).toBeCloseTo(0, 10);
    expect(b!.qZ).toBeCloseTo(0.5 / qs, 10);
    expect(b!.score).toBeCloseTo(0.668153, 6);
    expect(a!.score).toBeCloseTo(0.07785, 5);
    expect(c!.score).toBeCloseTo(-0.746003, 6);
    expect(r.every((x) => x.lambda === 0.5)).toBe(true);
  });

  it("lets a low λ (observation) favour similarity", () => {
    const r = rank(three, params(0.2));
    expect(r.map((x) => x.id)).toEqual(["a", "b", "c"]);
    expect(r[0]!.score).toBeCloseTo(0.8 * sZ + 0.2 * (-0.4 / qs), 10); // ≈ 0.765987
    expect(r[0]!.score).toBeCloseTo(0.765987, 6);
  });

  it("ranks purely by similarity at λ = 0 and purely by Q at λ = 1", () => {
    expect(rank(three, params(0)).map((x) => x.id)).toEqual(["a", "b", "c"]);
    expect(rank(three, params(1)).map((x) => x.id)).toEqual(["b", "c", "a"]);
  });

  it("scores a lone candidate by the blend of its values, z = 0: a strong match above a weak one", () => {
    const [only, ...rest] = rank([{ id: "x", sim: 0.8, q: 0.9 }], params(0.7));
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ id: "x", sim: 0.8, q: 0.9, simZ: 0, qZ: 0, lambda: 0.7 });
    expect(only!.score).toBeCloseTo(0.3 * 0.8 + 0.7 * 0.9, 12);
    const [weak] = rank([{ id: "y", sim: 0.35, q: 0.1 }], params(0.7));
    expect(weak!.score).toBeCloseTo(0.3 * 0.35 + 0.7 * 0.1, 12);
    expect(weak!.score).toBeLessThan(only!.score);
  });

  it("scores candidates alike in relevance and Q alike, by that blend, in the tie-break order", () => {
    const alike = rank(
      [
        { id: "b", sim: 0.6, q: 0.5 },
        { id: "a", sim: 0.6, q: 0.5 },
      ],
      params(0.3),
    );
    expect(alike.map((r) => r.id)).toEqual(["a", "b"]);
    for (const r of alike) expect(r.score).toBeCloseTo(0.7 * 0.6 + 0.3 * 0.5, 12);
    // Once one of them varies the identity of z-scores holds again, however small the spread.
    const apart = rank(
      [
        { id: "a", sim: 0.6, q: 0.5 },
        { id: "b", sim: 0.6, q: 0.6 },
      ],
      params(0.3),
    );
    for (const r of apart) expect(r.score).toBeCloseTo(0.7 * r.simZ + 0.3 * r.qZ, 12);
    expect(apart.map((r) => r.id)).toEqual(["b", "a"]);
    expect(apart[0]!.qZ).toBeCloseTo(1, 12);
  });

  it("falls back to similarity when all Q are equal (new memories)", () => {
    const r = rank(
      [
        { id: "lo", sim: 0.4, q: 0.5 },
        { id: "hi", sim: 0.8, q: 0.5 },
      ],
      params(1),
    );
    expect(r.map((x) => x.qZ)).toEqual([0, 0]);
    expect(r.map((x) => x.id)).toEqual(["hi", "lo"]);
  });

  it("breaks exact ties by id and score ties by higher similarity", () => {
    const same = rank(
      [
        { id: "z", sim: 0.5, q: 0.1 },
        { id: "m", sim: 0.5, q: 0.1 },
      ],
      params(0.5),
    );
    expect(same.map((x) => x.id)).toEqual(["m", "z"]);

    // simZ = ±1 and qZ = ∓1, so at λ = 0.5 both score 0; "b" has the higher sim.
    const mirrored = rank(
      [
        { id: "a", sim: 0.4, q: 0.9 },
        { id: "b", sim: 0.8, q: 0.1 },
      ],
      params(0.5),
    );
    expect(mirrored[0]!.score).toBeCloseTo(0, 12);
    expect(mirrored[1]!.score).toBeCloseTo(0, 12);
    expect(mirrored.map((x) => x.id)).toEqual(["b", "a"]);
  });

  it("drops candidates below the threshold (inclusive bound) before z-scoring", () => {
    const r = rank(
      [
        { id: "in", sim: 0.3, q: 0 },
        { id: "out", sim: 0.29, q: 1 },
        { id: "top", sim: 0.5, q: 1 },
      ],
      params(0.5),
    );
    expect(r.map((x) => x.id)).toEqual(["top", "in"]);
    // Only two kept, so z-scores are ±1 computed without "out".
    expect(r[0]!.simZ).toBeCloseTo(1, 10);
    expect(r[0]!.qZ).toBeCloseTo(1, 10);
  });

  it("keeps the k1 most similar before re-ranking and returns k2", () => {
    // "useful" has the best Q but the lowest sim: with k1 = 2 it never reaches phase B.
    const cands: Candidate[] = [
      { id: "useful", sim: 0.4, q: 1 },
      { id: "s1", sim: 0.9, q: 0 },
      { id: "s2", sim: 0.8, q: 0.1 },
    ];
    expect(rank(cands, params(1, { k1: 2 })).map((x) => x.id)).toEqual(["s2", "s1"]);
    expect(rank(cands, params(1, { k1: 3 })).map((x) => x.id)).toEqual(["useful", "s2", "s1"]);
    expect(rank(cands, params(1, { k1: 3, k2: 1 })).map((x) => x.id)).toEqual(["useful"]);
    expect(rank(cands, params(1, { k2: 0 }))).toEqual([]);
  });

  it("returns [] for no candidates and rejects λ outside [0,1]", () => {
    expect(rank([], params(0.5))).toEqual([]);
    expect(() => rank([], params(1.5))).toThrow(RangeError);
    expect(() => rank([], params(Number.NaN))).toThrow(RangeError);
  });

  it("does not reorder the caller's array", () => {
    const input = [...three].reverse();
    const ids = input.map((c) => c.id);
    rank(input, params(0.5));
    expect(input.map((c) => c.id)).toEqual(ids);
  });
});

describe("phases and λ", () => {
  it("has the documented defaults, in the one per-agent configuration", () => {
    const cfg = defaultAgentConfig();
    expect(cfg.lambda).toEqual({ observation: 0.2, reasoning: 0.5, planning: 0.7, action: 0.3, reflection: 0.6, default: 0.5 });
    expect([cfg.k1, cfg.k2, cfg.similarityThreshold]).toEqual([20, 5, null]);
    expect(Object.keys(cfg.lambda).filter((k) => k !== "default")).toEqual(PhaseSchema.options);
  });

  it("validates phases with zod", () => {
    expect(PhaseSchema.parse("reflection")).toBe("reflection");
    expect(PhaseSchema.safeParse("dreaming").success).toBe(false);
    expect(PhaseSchema.options).toEqual(["observation", "reasoning", "planning", "action", "reflection"]);
  });
});

describe("reciprocal-rank fusion", () => {
  it("scores 1 for first in every channel, at most 1/channels for one channel, and rewards agreement", () => {
    const fused = fuseRanks([
      ["both", "vectorOnly", "late"],
      ["both", "lexicalOnly", "late"],
    ]);
    expect(fused.get("both")).toBe(1);
    expect(fused.get("vectorOnly")).toBeCloseTo(61 / 62 / 2, 12);
    expect(fused.get("lexicalOnly")).toBe(fused.get("vectorOnly"));
    expect(fused.get("late")!).toBeGreaterThan(fused.get("vectorOnly")!);
    expect(fuseRanks([["solo"], []]).get("solo")).toBe(0.5);
    expect(fuseRanks([]).size).toBe(0);
  });
});

describe("FTS5 match expression", () => {
  const ftsMatch = (text: string) => ftsMatchOf(ftsTerms(text));
  it("ORs the quoted content words once each, so no word is read as query syntax", () => {
    expect(ftsMatch("The payments API returned 429 and the API NEAR retry")).toBe(
      '"payments" OR "api" OR "returned" OR "429" OR "near" OR "retry"',
    );
    expect(ftsMatch("do not retry")).toBe('"not" OR "retry"');
    expect(ftsMatch("it is the one")).toBe('"one"');
    expect(ftsMatch("is it the")).toBeNull();
    expect(ftsMatch("")).toBeNull();
  });
});

describe("discriminative terms", () => {
  const limits = { maxTermDocs: 100, maxScoredRows: 150 };
  it("drops words that match nothing or too many memories, then keeps the rarest within the row budget, in query order", () => {
    const counts = [
      { term: "deploy", docs: 101 },
      { term: "payments", docs: 60 },
      { term: "ghost", docs: 0 },
      { term: "api", docs: 80 },
      { term: "429", docs: 3 },
      { term: "retry", docs: 90 },
    ];
    // 429 (3) + payments (60) + api (80) = 143 ≤ 150; retry would reach 233.
    expect(discriminativeTerms(counts, limits)).toEqual(["payments", "api", "429"]);
    expect(discriminativeTerms([{ term: "deploy", docs: 101 }], limits)).toEqual([]);
    expect(discriminativeTerms([{ term: "only", docs: 100 }], limits)).toEqual(["only"]);
    expect(discriminativeTerms([], limits)).toEqual([]);
  });
});
