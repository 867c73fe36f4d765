import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { baseRelevance, LEARNED_MARGIN, rankCandidates } from "../../src/core/ranking/rank";
import type { CandidateInfo } from "../../src/core/ranking/candidates";
import { FEATURES, MIN_UPDATES, type RerankerState } from "../../src/core/reranker";

const THRESHOLD = 0.1;

function info(id: string, f: Partial<CandidateInfo>): CandidateInfo {
  return {
    id,
    kind: "experience",
    text: id,
    q: 0.5,
    tags: [],
    metadata: {},
    label: null,
    probation: false,
    lastUsedAt: null,
    match: "vector",
    channels: ["vector"],
    sim: 0,
    lexical: 0,
    usage: 0,
    learned: 0,
    when: 0,
    whenLexical: 0,
    relevance: 0.5,
    content: f.relevance ?? 0.5,
    ...f,
  };
}

const candidate = fc.record({
  sim: fc.double({ min: 0.05, max: 0.9, noNaN: true }),
  lexical: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 12, noNaN: true })),
  q: fc.double({ min: -1, max: 1, noNaN: true }),
  usage: fc.double({ min: 0, max: 1, noNaN: true }),
  learned: fc.double({ min: 0, max: 1, noNaN: true }),
  relevance: fc.double({ min: 0.3, max: 1, noNaN: true }),
  content: fc.double({ min: 0, max: 1, noNaN: true }),
});

/** A re-ranker that learned hard to prefer what matches least, and Q above all. */
const adversarial: RerankerState = {
  weights: FEATURES.map((name) => (name === "vectorSim" || name === "textBm25" ? -5 : name === "usageSim" || name === "q" ? 5 : 0)),
  bias: 0,
  updates: MIN_UPDATES * 10,
  positives: 100,
  negatives: 100,
};

describe("learned signals reorder only within LEARNED_MARGIN of base relevance", () => {
  it("no item passes one its content ranks below with a base relevance more than the margin higher, whatever Q, usage and the re-ranker say", () => {
    fc.assert(
      fc.property(
        fc.array(candidate, { minLength: 1, maxLength: 25 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        (raw, lambda, rerank) => {
          const infos = raw.map((r, i) => info(`m${String(i).padStart(2, "0")}`, r));
          const base = baseRelevance(infos, THRESHOLD);
          const ranked = rankCandidates(infos, {
            lambda,
            k1: 25,
            k2: 25,
            threshold: THRESHOLD,
            reranker: rerank ? adversarial : { ...adversarial, updates: 0 },
            now: 0,
          });
          expect(ranked).toHaveLength(infos.length);
          const contentFirst = (a: CandidateInfo, b: CandidateInfo) => a.content > b.content || (a.content === b.content && a.id < b.id);
          for (let i = 0; i < ranked.length; i++)
            for (let j = i + 1; j < ranked.length; j++) {
              const [above, below] = [ranked[i]!.info, ranked[j]!.info];
              if (!contentFirst(above, below))
                expect(base.get(below.id)! - base.get(above.id)!).toBeLessThanOrEqual(LEARNED_MARGIN + 1e-12);
            }
        },
      ),
      { numRuns: 300, seed: 39 },
    );
  });

  it("without learned signals the order is the content's own, whatever base relevance says", () => {
    const infos = [
      info("a", { sim: 0.2, lexical: 9, relevance: 0.9 }),
      info("b", { sim: 0.8, lexical: 0.5, relevance: 0.6 }),
      info("c", { sim: 0.8, lexical: 9, relevance: 0.4 }),
    ];
    const ranked = rankCandidates(infos, {
      lambda: 0.5,
      k1: 20,
      k2: 5,
      threshold: THRESHOLD,
      reranker: { ...adversarial, updates: 0 },
      now: 0,
    });
    expect(ranked.map((r) => r.id)).toEqual(["a", "b", "c"]);
  });

  it("within the margin, Q still decides: the higher-utility of two like answers ranks first", () => {
    const infos = [info("a", { sim: 0.5, lexical: 4, q: 0.2 }), info("b", { sim: 0.48, lexical: 3.9, q: 0.9 })];
    const ranked = rankCandidates(infos, { lambda: 0.5, k1: 20, k2: 5, threshold: THRESHOLD, reranker: adversarial, now: 0 });
    expect(ranked.map((r) => r.id)).toEqual(["b", "a"]);
  });

  it("base relevance is 1 for the best match of every channel and counts nothing learned", () => {
    const base = baseRelevance(
      [info("best", { sim: 0.6, lexical: 5 }), info("taught", { sim: 0.12, lexical: 0, usage: 1, learned: 1, q: 1 })],
      THRESHOLD,
    );
    expect(base.get("best")).toBe(1);
    expect(base.get("taught")).toBeCloseTo(0.02 / 0.5 / 2, 9);
  });
});
