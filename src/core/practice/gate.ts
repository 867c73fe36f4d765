import type { PromoteMode } from "./run-types";

/** A settled held-out evaluation of one library of a run. */
export interface EpochResult {
  epoch: number;
  status: "completed" | "failed";
  accuracy: number | null;
  interval: [number, number] | null;
}

export type PromotionChoice = { promote: true; epoch: number | null; reason: string } | { promote: false; epoch: null; reason: string };

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const evidence = (r: EpochResult) =>
  `${pct(r.accuracy!)}${r.interval ? ` [${pct(r.interval[0])}, ${pct(r.interval[1])}]` : ""} (epoch ${r.epoch})`;
const scored = (r: EpochResult | undefined): r is EpochResult => !!r && r.status === "completed" && r.accuracy !== null;

/**
 * Which library a finished run promotes. `finalEpoch` is the epoch whose evaluation covers the
 * final library, or null when the final library was never evaluated (a run stopped by its budget
 * mid-epoch). Ties favour the earlier, less-trained library: a change must earn its place.
 */
export function choosePromotion(
  mode: PromoteMode,
  results: readonly EpochResult[],
  opts: { minGain: number; finalEpoch: number | null },
): PromotionChoice {
  if (mode === "never") return { promote: false, epoch: null, reason: "promote is 'never': the learned library stays in the run" };
  const final = opts.finalEpoch === null ? undefined : results.find((r) => r.epoch === opts.finalEpoch);
  if (mode === "always") {
    return {
      promote: true,
      epoch: null,
      reason: scored(final) ? `promote is 'always'; holdout accuracy ${evidence(final)}` : "promote is 'always'",
    };
  }
  const start = results.find((r) => r.epoch === 0);
  if (!scored(start))
    return {
      promote: false,
      epoch: null,
      reason: `the starting library's holdout evaluation ${start ? "failed" : "did not run"}, so there is no baseline to beat`,
    };
  if (mode === "gate") {
    if (!scored(final))
      return {
        promote: false,
        epoch: null,
        reason: "the final library has no holdout accuracy (its evaluation failed or did not run), so the gate stays closed",
      };
    const needed = start.accuracy! + opts.minGain;
    if (final.accuracy! + 1e-9 < needed) {
      return {
        promote: false,
        epoch: null,
        reason: `gate: holdout accuracy ${evidence(final)} is below the starting library's ${evidence(start)}${opts.minGain ? ` + minGain ${pct(opts.minGain)}` : ""}`,
      };
    }
    return {
      promote: true,
      epoch: final.epoch,
      reason: `gate passed: holdout accuracy ${evidence(final)} ≥ starting ${evidence(start)}${opts.minGain ? ` + minGain ${pct(opts.minGain)}` : ""}`,
    };
  }
  let best = start;
  for (const r of results) if (scored(r) && r.accuracy! > best.accuracy! + 1e-9) best = r;
  if (best.epoch === 0)
    return { promote: false, epoch: null, reason: `best: no epoch beat the starting library's holdout accuracy ${evidence(start)}` };
  return {
    promote: true,
    epoch: best.epoch,
    reason: `best: epoch ${best.epoch} had the best holdout accuracy ${evidence(best)}; starting ${evidence(start)}`,
  };
}

/**
 * `best` stops once `patience` evaluated epochs in a row have not beaten the best so far. Only the
 * settled prefix counts (evaluations may finish out of order), and a failed evaluation says
 * nothing either way, so it never stops a run.
 */
export function shouldStopEarly(results: readonly EpochResult[], patience: number): boolean {
  const byEpoch = new Map(results.map((r) => [r.epoch, r]));
  let best = -Infinity;
  let since = 0;
  for (let e = 0; byEpoch.has(e); e++) {
    const r = byEpoch.get(e)!;
    if (!scored(r)) return false;
    if (r.accuracy! > best + 1e-9) {
      best = r.accuracy!;
      since = 0;
    } else since++;
  }
  return since >= patience;
}
