/**
 * Utility values (Q) for memories: how rewards are derived from reported outcomes, how Q moves
 * towards them, and the summary numbers used to tell whether learning has settled.
 * Q and rewards live in [−1, 1]. The defaults (α, the initial Q, the outcome → reward mapping) are
 * per-agent settings in agent-config.ts.
 */
import { z } from "zod";

export const OUTCOMES = ["success", "failure", "partial", "timeout"] as const;
export const EpisodeOutcomeSchema = z.enum(OUTCOMES);
export type EpisodeOutcome = z.infer<typeof EpisodeOutcomeSchema>;

export type RewardMapping = Record<EpisodeOutcome, number>;

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

export interface RewardInput {
  outcome?: EpisodeOutcome;
  reward?: number;
  /** Scales the reward; 1 when absent. */
  quality?: number;
}

/**
 * An explicit reward wins over the outcome, because a caller who measured something should not be
 * overridden by a coarse label. Quality multiplies either one, so a low-quality success and a
 * low-quality failure both move Q less. The result is clamped to [−1, 1] so one report can never
 * push Q outside its range. Throws when there is nothing to derive a reward from, or on
 * non-finite numbers, rather than silently recording 0.
 */
export function rewardFor(input: RewardInput, mapping: Readonly<RewardMapping>): number {
  let base: number;
  if (input.reward !== undefined) {
    base = input.reward;
  } else if (input.outcome !== undefined) {
    base = mapping[input.outcome];
  } else {
    throw new TypeError("rewardFor needs an outcome or a reward");
  }
  if (!Number.isFinite(base)) throw new RangeError(`reward must be finite, got ${base}`);
  const quality = input.quality ?? 1;
  if (!(quality >= 0 && quality <= 1)) throw new RangeError(`quality must be in [0,1], got ${quality}`);
  return clamp(base * quality, -1, 1);
}

/** Exponential moving average: Q ← Q + α·(r − Q). */
export function emaUpdate(q: number, r: number, alpha: number): number {
  return q + alpha * (r - q);
}

/** Maps Q from [−1, 1] to [0, 1], clamping, for formulas that want a fraction (decay). */
export function normaliseQ(q: number): number {
  return clamp((q + 1) / 2, 0, 1);
}

/**
 * Mean |ΔQ| over the last n updates: small means Q has stopped moving. With no updates it is 0
 * (nothing is moving), so callers that need "enough evidence" must check the count themselves.
 */
export function convergence(deltas: readonly number[], n: number): number {
  const take = Math.min(deltas.length, Math.max(0, Math.floor(n)));
  if (take === 0) return 0;
  let sum = 0;
  for (let i = deltas.length - take; i < deltas.length; i++) sum += Math.abs(deltas[i]!);
  return sum / take;
}

export interface HistogramBucket {
  from: number;
  to: number;
  count: number;
}

export interface QStats {
  count: number;
  mean: number;
  /** Population standard deviation. */
  std: number;
  /** Equal-width buckets over [−1, 1]; each is [from, to) except the last, which includes 1. */
  histogram: HistogramBucket[];
}

export function qStats(values: readonly number[], buckets = 10): QStats {
  const nb = Math.max(1, Math.floor(buckets));
  // Bounds are one division of integers, which floats round correctly (−0.2, where −1 + 0.8
  // would give −0.19999999999999996).
  const histogram: HistogramBucket[] = Array.from({ length: nb }, (_, i) => ({
    from: (2 * i - nb) / nb,
    to: (2 * (i + 1) - nb) / nb,
    count: 0,
  }));
  const count = values.length;
  if (count === 0) return { count, mean: 0, std: 0, histogram };

  let sum = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) throw new RangeError(`Q values must be finite, got ${v}`);
    sum += v;
  }
  const mean = sum / count;
  let sq = 0;
  for (const v of values) {
    sq += (v - mean) * (v - mean);
    // Out-of-range values land in the end buckets rather than vanishing from the counts.
    const idx = Math.min(nb - 1, Math.max(0, Math.floor(((clamp(v, -1, 1) + 1) / 2) * nb)));
    histogram[idx]!.count++;
  }
  return { count, mean, std: Math.sqrt(sq / count), histogram };
}
