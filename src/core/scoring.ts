/**
 * Two-phase, utility-aware ranking of retrieval candidates.
 *
 * Phase A is pure relevance: drop anything below the similarity threshold and keep the k1 most
 * similar. Phase B re-ranks only those by a blend of similarity and learned utility (Q). Both are
 * z-scored within the kept set because raw cosine and raw Q live on different scales; without it
 * λ would not mean "how much utility counts" but depend on the embedder's similarity spread.
 * When neither varies among the kept candidates, z-scores say nothing and the score is the blend
 * of the values, (1-λ)·sim + λ·q.
 */
import { z } from "zod";

export interface Candidate {
  id: string;
  sim: number;
  q: number;
}

export interface RankParams {
  /** Weight of utility in [0,1]: 0 ranks by similarity only, 1 by Q only. */
  lambda: number;
  /** Candidates kept after phase A. */
  k1: number;
  /** Results returned after phase B. */
  k2: number;
  /** Minimum similarity to enter phase A (inclusive). */
  threshold: number;
}

export type Ranked = Candidate & { simZ: number; qZ: number; lambda: number; score: number };

export const PHASES = ["observation", "reasoning", "planning", "action", "reflection"] as const;
export const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

/**
 * Population z-scores. When the values do not vary (including a single value) every z is 0: they
 * carry no ranking information, and dividing by a float-noise std would invent some. "Do not vary"
 * is judged relative to the magnitude, since the mean of equal floats can differ from them in the
 * last bit.
 */
export function zScores(values: number[]): number[] {
  const n = values.length;
  if (n === 0) return [];
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let sq = 0;
  for (const v of values) sq += (v - mean) * (v - mean);
  const std = Math.sqrt(sq / n);
  let scale = 1;
  for (const v of values) scale = Math.max(scale, Math.abs(v));
  if (!(std > 1e-12 * scale)) return values.map(() => 0);
  return values.map((v) => (v - mean) / std);
}

const SCORE_EPSILON = 1e-12;

function bySimDesc(a: Candidate, b: Candidate): number {
  return b.sim - a.sim || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function rank(candidates: readonly Candidate[], params: RankParams): Ranked[] {
  const { lambda, threshold } = params;
  if (!(lambda >= 0 && lambda <= 1)) throw new RangeError(`lambda must be in [0,1], got ${lambda}`);
  const k1 = Math.max(0, Math.floor(params.k1));
  const k2 = Math.max(0, Math.floor(params.k2));

  const kept = candidates
    .filter((c) => c.sim >= threshold)
    .sort(bySimDesc)
    .slice(0, k1);
  const simZ = zScores(kept.map((c) => c.sim));
  const qZ = zScores(kept.map((c) => c.q));

  // With nothing varying (a lone candidate, or candidates alike in both), every z is 0 and the
  // blend of z-scores would score each 0 whatever its match; the blend of the values themselves
  // tells a strong lone match from a weak one, and changes no order since all are alike.
  const flat = kept.every((_, i) => simZ[i] === 0 && qZ[i] === 0);
  const ranked: Ranked[] = kept.map((c, i) => {
    const sz = simZ[i]!;
    const qz = qZ[i]!;
    const score = flat ? (1 - lambda) * c.sim + lambda * c.q : (1 - lambda) * sz + lambda * qz;
    return { ...c, simZ: sz, qZ: qz, lambda, score };
  });
  // Scores that are equal on paper can differ in the last bit (e.g. λ=0.5 with swapped z-scores),
  // so near-equal scores count as ties and fall through to the deterministic tie-break.
  ranked.sort((a, b) => {
    const d = b.score - a.score;
    return Math.abs(d) > SCORE_EPSILON ? d : bySimDesc(a, b);
  });
  return ranked.slice(0, k2);
}

/**
 * The RRF constant: how flat the reward for rank is. 60 is the value of Cormack, Clarke and
 * Büttcher (2009), which later hybrid-search work keeps as robust across collections.
 */
export const RRF_K = 60;

/**
 * Hybrid phase A: one relevance in [0,1] from several channels' rankings (best first), by
 * reciprocal-rank fusion, normalised so that an item ranked first by every channel scores 1 and
 * one found by a single channel at most 1/channels.
 *
 * Ranks rather than calibrated scores because the channels share no scale: cosine depends on the
 * embedder (feature hashing spreads related texts over 0.2–0.6, averaged word vectors over 0.5–0.9,
 * neural models elsewhere again), and BM25 is unbounded and grows with query length. Calibrating
 * their sum would need a fit per embedder and per library; ranks need none, and each channel still
 * applies its own gate (the embedder's similarity threshold, a shared content word) before fusion.
 */
export function fuseRanks(rankings: readonly (readonly string[])[], k: number = RRF_K): Map<string, number> {
  const fused = new Map<string, number>();
  if (!rankings.length) return fused;
  const best = rankings.length / (k + 1);
  for (const ranking of rankings) {
    ranking.forEach((id, i) => fused.set(id, (fused.get(id) ?? 0) + 1 / (k + i + 1)));
  }
  for (const [id, v] of fused) fused.set(id, Math.min(1, v / best));
  return fused;
}
