/**
 * Lessons on probation prove themselves in prompts. A lesson whose worth is unknown is
 * shown in a random share of the prompts it matches; the outcomes of the episodes that were shown
 * it, against those that matched it and were not, decide whether it graduates (joins every prompt),
 * is retired (archived, the evidence as the reason) or keeps being explored.
 *
 * The assignment is a seeded draw per (seed, lesson): the seed is the episode for a prompt in one
 * (every prompt of an episode makes the same choice, so an episode is in one arm) and the
 * retrieval's own id otherwise, so the object and a Worker serving from a snapshot choose alike.
 *
 * The rule: each arm's first-try success rate has a Beta(1, 1) prior and a Beta posterior; the
 * difference of the two (normal approximation) has a `z` interval. It graduates once the interval
 * lies above 0, is retired once it lies below 0, both only with `minEach` outcomes per arm; after
 * `maxExposures` shown outcomes without either it stops being explored (inconclusive: on probation,
 * out of prompts). Checked after every outcome; the A/A and power series (test/core/probation.test.ts,
 * bench/RESULTS.md) measure what the repeated looks cost.
 */
import { hash32 } from "./hash-embedder";

export const PROBATION_RULE = {
  /** Chance that a matching prompt shows the lesson. Half: the comparison's two arms fill alike. */
  share: 0.5,
  /** Most lessons on probation one prompt tests (and so carries). */
  perPrompt: 2,
  /** A query's lessons ranked this high or higher (what /retrieve would answer)… */
  matchRank: 5,
  /** …whose base relevance (own content only) is at least this share of the best of them match it. */
  matchRelevance: 0.6,
  /** The interval: 99% two-sided. */
  level: 0.99,
  z: 2.576,
  /** Outcomes each arm needs before any verdict. */
  minEach: 4,
  /** Shown outcomes after which exploration ends without a verdict: the most a harmful lesson can cost. */
  maxExposures: 30,
} as const;

/** Stored in `experiences.probation`: trusted, on probation and explored, on probation and held out of prompts. */
export const PROBATION = { trusted: 0, exploring: 1, held: 2 } as const;

/** Where in [0, 1) a lesson's draw for this seed falls; below the share it is shown. */
export const explorationDraw = (seed: string, lessonId: string) => hash32(`${seed}|${lessonId}`) / 2 ** 32;
/** A second, independent draw: which of more matching lessons than a prompt may test it tests. */
const pickDraw = (seed: string, lessonId: string) => hash32(`${seed}|pick|${lessonId}`);

/** Which lessons a prompt shows to test them, and which matched and were not shown (the comparison's other arm). */
export interface Exploration {
  shown: string[];
  control: string[];
}

/**
 * The lessons on probation a prompt tests: at most `perPrompt` of those matching it, picked by one
 * draw; each one tested is then shown or not by a draw of its own (the shown and control arms). The
 * arms of two lessons are independent, so neither lesson's effect leans on the other's comparison
 * (a cap applied after the draws would show one lesson more often exactly when another is not
 * shown); a lesson not picked is in no arm.
 */
export function chooseExploration(seed: string, matching: readonly string[], rule = PROBATION_RULE): Exploration {
  const tested =
    matching.length <= rule.perPrompt
      ? matching
      : [...matching].sort((a, b) => pickDraw(seed, a) - pickDraw(seed, b) || (a < b ? -1 : 1)).slice(0, rule.perPrompt);
  return {
    shown: tested.filter((id) => explorationDraw(seed, id) < rule.share),
    control: tested.filter((id) => explorationDraw(seed, id) >= rule.share),
  };
}

/** Outcomes of the episodes that matched a lesson: shown it, and not. */
export interface TrialCounts {
  shown: number;
  shownOk: number;
  control: number;
  controlOk: number;
}

export type Verdict = "graduated" | "retired" | "inconclusive";

export interface Judgement {
  /** Posterior mean of (success rate shown) − (success rate not shown), and its interval; null before any outcome in both arms. */
  difference: { estimate: number; low: number; high: number } | null;
  verdict: Verdict | null;
}

const posterior = (ok: number, n: number) => {
  const a = 1 + ok;
  const b = 1 + n - ok;
  return { mean: a / (a + b), variance: (a * b) / ((a + b) ** 2 * (a + b + 1)) };
};

export function judge(c: TrialCounts, rule = PROBATION_RULE): Judgement {
  if (!c.shown || !c.control) return { difference: null, verdict: c.shown >= rule.maxExposures ? "inconclusive" : null };
  const s = posterior(c.shownOk, c.shown);
  const n = posterior(c.controlOk, c.control);
  const estimate = s.mean - n.mean;
  const half = rule.z * Math.sqrt(s.variance + n.variance);
  const difference = { estimate, low: estimate - half, high: estimate + half };
  const enough = c.shown >= rule.minEach && c.control >= rule.minEach;
  const verdict: Verdict | null =
    enough && difference.low > 0
      ? "graduated"
      : enough && difference.high < 0
        ? "retired"
        : c.shown >= rule.maxExposures
          ? "inconclusive"
          : null;
  return { difference, verdict };
}

const pct = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(0)}`;

/** The evidence behind a verdict, in words: a retired lesson's library version gives it as its reason. */
export function evidenceText(c: TrialCounts, j: Judgement, rule = PROBATION_RULE): string {
  const arms = `shown in ${c.shown} prompts (${c.shownOk} succeeded at the first try), not shown in ${c.control} matching ones (${c.controlOk})`;
  return j.difference
    ? `${arms}; difference ${pct(j.difference.estimate)} points, ${Math.round(rule.level * 100)}% interval ${pct(j.difference.low)} to ${pct(j.difference.high)}`
    : arms;
}

/** A verdict as stored: "retiring" until the library version that archives the lesson is written. */
export type StoredVerdict = Verdict | "retiring";

/** What a lesson's record says of its trial: a retiring lesson is retired already (out of every prompt). */
export function servedVerdict(stored: string | null, probation: number): Verdict | "exploring" | null {
  if (stored === "retiring") return "retired";
  if (stored) return stored as Verdict;
  return probation === PROBATION.exploring ? "exploring" : null;
}
