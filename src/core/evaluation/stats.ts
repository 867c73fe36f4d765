/**
 * Accuracy and its uncertainty for held-out evaluations. Tasks are the unit of resampling: a
 * task's samples share the task's difficulty, so resampling single answers would understate the
 * spread. Every interval is a seeded percentile bootstrap, so the same seed gives the same bounds.
 */
import { seededRandom } from "../practice/rng";
import { expandedTail } from "./quantiles";

export const BOOTSTRAP_RESAMPLES = 2000;
export const CONFIDENCE = 0.95;
/** Task means closer than this count as tied (they are means of a few rewards in [0, 1]). */
const TIE_EPSILON = 1e-9;

export type Interval = [low: number, high: number];

export const mean = (values: readonly number[]): number => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN);

/** The bounds left after cutting the `tail` share of sorted draws from each end (nearest rank, no interpolation). */
function percentileBounds(draws: number[], tail: number): Interval {
  draws.sort((a, b) => a - b);
  const last = draws.length - 1;
  return [draws[Math.floor(tail * last)]!, draws[Math.ceil((1 - tail) * last)]!];
}

/** The bootstrap distribution of the mean of `values`, resampling them with replacement. */
function bootstrapMeans(values: readonly number[], seed: number, resamples: number): number[] {
  const random = seededRandom(seed);
  const n = values.length;
  const draws = new Array<number>(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(random() * n)]!;
    draws[b] = sum / n;
  }
  return draws;
}

export interface BootstrapOptions {
  seed: number;
  resamples?: number;
  level?: number;
  /** Widen the interval for few values (see expandedTail): what decisions use, so a handful of tasks cannot pass by luck. */
  expanded?: boolean;
}

/** A percentile bootstrap interval for the mean; null for no values. */
export function bootstrapInterval(values: readonly number[], opts: BootstrapOptions): Interval | null {
  if (values.length === 0) return null;
  const level = opts.level ?? CONFIDENCE;
  const tail = opts.expanded ? expandedTail(values.length, level) : (1 - level) / 2;
  return percentileBounds(bootstrapMeans(values, opts.seed, opts.resamples ?? BOOTSTRAP_RESAMPLES), tail);
}

export interface Accuracy {
  /** The mean of the task means: every task weighs the same whatever its sample count. */
  accuracy: number;
  interval: Interval;
  tasks: number;
}

/** Accuracy over tasks from each task's rewards (one per sample); tasks without rewards are left out. */
export function accuracyOf(taskRewards: readonly (readonly number[])[], opts: BootstrapOptions): Accuracy | null {
  const means = taskRewards.filter((r) => r.length > 0).map((r) => mean(r));
  const interval = bootstrapInterval(means, opts);
  return interval ? { accuracy: mean(means), interval, tasks: means.length } : null;
}

export interface PairedDifference {
  /** mean(b) − mean(a) over the paired tasks. */
  difference: number;
  interval: Interval;
  /** Tasks where b's mean reward is higher (won), lower (lost) or equal (tied). */
  won: number;
  lost: number;
  tied: number;
}

/**
 * The paired bootstrap of b − a: the same tasks are drawn for both sides in each resample, so the
 * difference in task difficulty cancels and the interval reflects only how the two sides differ.
 */
export function pairedBootstrap(a: readonly number[], b: readonly number[], opts: BootstrapOptions): PairedDifference | null {
  if (a.length !== b.length) throw new RangeError("paired samples must have the same length");
  if (a.length === 0) return null;
  const diffs = a.map((x, i) => b[i]! - x);
  return {
    difference: mean(diffs),
    interval: bootstrapInterval(diffs, opts)!,
    won: diffs.filter((d) => d > TIE_EPSILON).length,
    lost: diffs.filter((d) => d < -TIE_EPSILON).length,
    tied: diffs.filter((d) => Math.abs(d) <= TIE_EPSILON).length,
  };
}
