/**
 * The one rule by which Praxis decides that one library is better than another (the practice
 * gate, `best`, A/B comparisons): both are scored on the same tasks with the same draws (sample s
 * of a task has the same sampling seed on both sides), each task gives the mean of its paired
 * differences, and a percentile bootstrap over tasks (a task's pairs stay together) gives the
 * interval of candidate − incumbent. The candidate is better only when the interval's lower bound
 * is above `minGain`, strictly; a tie or an interval that straddles it keeps the incumbent.
 */
import { z } from "zod";
import { CONFIDENCE, mean, pairedBootstrap } from "./stats";

/**
 * Fewer paired tasks than this never decide for the candidate: with five tasks even "every task
 * improved" happens by chance once in 32 times, more than the 2.5% the rule allows.
 */
export const MIN_PAIRED_TASKS = 6;
/** Resamples of a decision's bootstrap: the expanded tail of a small sample cuts a few tenths of a percent. */
export const DECISION_RESAMPLES = 4000;

/** A task's rewards on one side, one per sample in sample order (null: that sample was not scored). */
export interface TaskRewards {
  taskId: string;
  rewards: readonly (number | null)[];
}

/** A task's paired samples: for each draw both sides scored, the incumbent's and the candidate's reward. */
export interface PairedTask {
  taskId: string;
  incumbent: number[];
  candidate: number[];
}

/**
 * Pairs two evaluations of the same tasks and draws: sample s of a task on one side with sample s
 * of the same task on the other. Tasks or samples only one side scored are left out.
 */
export function pairSamples(incumbent: readonly TaskRewards[], candidate: readonly TaskRewards[]): PairedTask[] {
  const other = new Map(candidate.map((t) => [t.taskId, t.rewards]));
  const out: PairedTask[] = [];
  for (const t of incumbent) {
    const c = other.get(t.taskId);
    if (!c) continue;
    const pair: PairedTask = { taskId: t.taskId, incumbent: [], candidate: [] };
    for (let s = 0; s < Math.min(t.rewards.length, c.length); s++) {
      const a = t.rewards[s];
      const b = c[s];
      if (a === null || a === undefined || b === null || b === undefined) continue;
      pair.incumbent.push(a);
      pair.candidate.push(b);
    }
    if (pair.incumbent.length) out.push(pair);
  }
  return out;
}

/** Joins the paired samples of several rounds (more draws of the same tasks), task by task, in first-seen order. */
export function joinRounds(rounds: readonly (readonly PairedTask[])[]): PairedTask[] {
  const byTask = new Map<string, PairedTask>();
  for (const round of rounds) {
    for (const t of round) {
      const seen = byTask.get(t.taskId);
      if (seen) {
        seen.incumbent.push(...t.incumbent);
        seen.candidate.push(...t.candidate);
      } else byTask.set(t.taskId, { taskId: t.taskId, incumbent: t.incumbent.slice(), candidate: t.candidate.slice() });
    }
  }
  return [...byTask.values()];
}

export const IntervalSchema = z.tuple([z.number(), z.number()]).describe("95% bootstrap interval over tasks [low, high]");

/** A paired decision between two libraries, as the gate and comparisons report it. */
export const PairedDecisionSchema = z.object({
  verdict: z
    .enum(["better", "not-better", "undecided"])
    .describe(
      "better: the interval's lower bound is above minGain; not-better: its upper bound is not, or there are too few paired tasks; undecided: it straddles minGain",
    ),
  difference: z.number().nullable().describe("mean over paired tasks of candidate − incumbent"),
  interval: IntervalSchema.nullable().describe("paired percentile bootstrap interval of the difference (tasks resampled), at `level`"),
  level: z.number().describe("the interval's two-sided confidence: 95%, shared among `looks`"),
  minGain: z.number(),
  tasks: z.number().int().describe("paired tasks"),
  samples: z.number().int().describe("paired samples per task (the fewest any task has)"),
  rollouts: z.number().int().describe("evaluation rollouts behind the decision, both sides"),
  looks: z.number().int().describe("how many times the rule may look as samples are added; the 5% error rate is shared among them"),
  won: z.number().int().describe("tasks where the candidate scored higher"),
  lost: z.number().int(),
  tied: z.number().int(),
  rule: z.string().describe("the decision rule in words"),
});
export type PairedDecision = z.infer<typeof PairedDecisionSchema>;
export type Verdict = PairedDecision["verdict"];

export interface DecisionOptions {
  minGain: number;
  /** Seeds the bootstrap, so the same evidence always gives the same decision. */
  seed: number;
  /** How many looks the caller may take in all (each one after more samples); default 1. */
  looks?: number;
}

const pct = (x: number) => `${(x * 100).toFixed(x * 100 === Math.round(x * 100) ? 0 : 2)}%`;

/** The rule in words, as decisions record it. */
export const ruleText = (level: number, minGain: number, looks: number) =>
  `paired bootstrap over tasks (same tasks, same draws): better only if the lower bound of the ${pct(level)} interval of candidate − incumbent is above minGain ${minGain}${looks > 1 ? ` (95% shared among ${looks} looks)` : ""}, with at least ${MIN_PAIRED_TASKS} paired tasks; otherwise the incumbent stays`;

/**
 * Decides whether the candidate is better than the incumbent by more than minGain. A caller that
 * may add samples when undecided says so up front (`looks`): each look then uses its share of the
 * 5% error rate (Bonferroni), so looking again cannot raise the rate of false promotions.
 */
export function decide(pairs: readonly PairedTask[], opts: DecisionOptions): PairedDecision {
  const looks = Math.max(1, Math.floor(opts.looks ?? 1));
  const level = 1 - (1 - CONFIDENCE) / looks;
  const rule = ruleText(level, opts.minGain, looks);
  const base = { level, minGain: opts.minGain, looks, rule };
  if (pairs.length === 0) {
    return {
      ...base,
      verdict: "not-better",
      difference: null,
      interval: null,
      tasks: 0,
      samples: 0,
      rollouts: 0,
      won: 0,
      lost: 0,
      tied: 0,
    };
  }
  const d = pairedBootstrap(
    pairs.map((p) => mean(p.incumbent)),
    pairs.map((p) => mean(p.candidate)),
    { seed: opts.seed, level, expanded: true, resamples: DECISION_RESAMPLES },
  )!;
  // A bound within rounding of minGain is a tie, and a tie keeps the incumbent.
  const gain = opts.minGain + 1e-12;
  // Too few tasks cannot decide for the candidate, and more samples of the same tasks would not help.
  const verdict: Verdict =
    pairs.length < MIN_PAIRED_TASKS || d.interval[1] <= gain ? "not-better" : d.interval[0] > gain ? "better" : "undecided";
  return {
    ...base,
    verdict,
    difference: d.difference,
    interval: d.interval,
    tasks: pairs.length,
    samples: Math.min(...pairs.map((p) => p.incumbent.length)),
    rollouts: 2 * pairs.reduce((n, p) => n + p.incumbent.length, 0),
    won: d.won,
    lost: d.lost,
    tied: d.tied,
  };
}

const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`;

/** The evidence in one line: difference, interval, tasks and samples. */
export function evidenceLine(d: PairedDecision): string {
  if (d.difference === null || d.interval === null) return "no paired tasks";
  return `candidate − incumbent ${signed(d.difference)} [${signed(d.interval[0])}, ${signed(d.interval[1])}] (${pct(d.level)} interval) over ${d.tasks} paired task${d.tasks === 1 ? "" : "s"} × ${d.samples} sample${d.samples === 1 ? "" : "s"}`;
}
