/**
 * The one rule by which Praxis decides that one library is better than another (the practice
 * gate, `best`, A/B comparisons): both are scored on the same tasks with the same draws (sample s
 * of a task has the same sampling seed on both sides), each task gives the mean of its paired
 * differences, and a percentile bootstrap over tasks (a task's pairs stay together) gives the
 * interval of candidate − incumbent. The candidate is better only when the interval's lower bound
 * is above `minGain`, strictly, and the paired sign-flip test agrees; a tie or an interval that
 * straddles it keeps the incumbent.
 */
import { z } from "zod";
import { seededRandom } from "../practice/rng";
import { CONFIDENCE, mean, pairedBootstrap } from "./stats";

/** Resamples of a decision's bootstrap: the expanded tail of a small sample cuts a few tenths of a percent. */
export const DECISION_RESAMPLES = 4000;
/** Up to this many differing tasks the sign-flip test counts every sign pattern; beyond, it samples them. */
const EXACT_FLIPS = 16;
const SAMPLED_FLIPS = 20_000;

/** The fewest paired tasks that can pass at `level`: even with every task better, n tasks reach only p = 2⁻ⁿ. */
export const minPairedTasks = (level: number) => Math.ceil(Math.log2(2 / (1 - level)) + 1e-9);

/** The level of each of `looks` looks that share the 5% error rate. */
export const levelOf = (looks: number) => 1 - (1 - CONFIDENCE) / looks;

/**
 * How many looks (at most `wanted`) a decision over `tasks` paired tasks may plan for: each look
 * has to leave enough of the error rate for that many tasks to pass at all. Fixed by the task
 * count before the first look, so it does not depend on what the looks show.
 */
export function lookBudget(tasks: number, wanted: number): number {
  let looks = Math.max(1, Math.floor(wanted));
  while (looks > 1 && minPairedTasks(levelOf(looks)) > tasks) looks--;
  return looks;
}

/**
 * The one-sided p-value of the paired sign-flip (randomisation) test that the mean difference is
 * above `shift`: the share of sign patterns of the differences d − shift whose sum is at least the
 * observed one. When the two libraries are interchangeable each task's difference is as likely
 * negative as positive, so this is exact whatever the differences look like; the percentile
 * bootstrap is not when most tasks tie and the rest lean one way (its short tail put the lower
 * bound above 0 for 2 of 20 identical libraries in bench:gate). Tasks at exactly `shift` count
 * for neither side. Counted exactly for up to EXACT_FLIPS differing tasks, else sampled (seeded).
 */
export function signFlipP(differences: readonly number[], shift: number, seed: number): number {
  const x = differences.map((d) => d - shift).filter((d) => Math.abs(d) > 1e-12);
  if (x.length === 0) return 1;
  const observed = x.reduce((a, b) => a + b, 0) - 1e-9;
  const size = x.map(Math.abs);
  const total = size.reduce((a, b) => a + b, 0);
  if (x.length <= EXACT_FLIPS) {
    let atLeast = 0;
    const patterns = 2 ** x.length;
    for (let mask = 0; mask < patterns; mask++) {
      let negative = 0;
      for (let i = 0; i < size.length; i++) if (mask & (1 << i)) negative += size[i]!;
      if (total - 2 * negative >= observed) atLeast++;
    }
    return atLeast / patterns;
  }
  const random = seededRandom(seed ^ 0x5bd1e995);
  let atLeast = 0;
  for (let r = 0; r < SAMPLED_FLIPS; r++) {
    let sum = 0;
    for (const s of size) sum += random() < 0.5 ? -s : s;
    if (sum >= observed) atLeast++;
  }
  return (atLeast + 1) / (SAMPLED_FLIPS + 1);
}

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
      "better: the interval's lower bound is above minGain and the sign-flip test agrees; not-better: the upper bound is not above minGain, or there are too few paired tasks to ever pass; undecided: neither",
    ),
  difference: z.number().nullable().describe("mean over paired tasks of candidate − incumbent"),
  interval: IntervalSchema.nullable().describe("paired percentile bootstrap interval of the difference (tasks resampled), at `level`"),
  p: z
    .number()
    .nullable()
    .describe("one-sided p-value of the paired sign-flip test that the difference is above minGain; must be below (1 − level) / 2"),
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
  `paired over the same tasks and draws: better only if the lower bound of the ${pct(level)} bootstrap interval (tasks resampled) of candidate − incumbent is above minGain ${minGain} and the paired sign-flip test agrees (one-sided p < ${pct((1 - level) / 2)})${looks > 1 ? `, 95% shared among ${looks} looks` : ""}; otherwise the incumbent stays`;

/**
 * Decides whether the candidate is better than the incumbent by more than minGain. A caller that
 * may add samples when undecided says so up front (`looks`): each look then uses its share of the
 * 5% error rate (Bonferroni), so looking again cannot raise the rate of false promotions.
 */
export function decide(pairs: readonly PairedTask[], opts: DecisionOptions): PairedDecision {
  const looks = Math.max(1, Math.floor(opts.looks ?? 1));
  const level = levelOf(looks);
  const rule = ruleText(level, opts.minGain, looks);
  const base = { level, minGain: opts.minGain, looks, rule };
  if (pairs.length === 0) {
    return {
      ...base,
      verdict: "not-better",
      difference: null,
      interval: null,
      p: null,
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
  const p = signFlipP(
    pairs.map((t) => mean(t.candidate) - mean(t.incumbent)),
    opts.minGain,
    opts.seed,
  );
  // A bound within rounding of minGain is a tie, and a tie keeps the incumbent.
  const gain = opts.minGain + 1e-12;
  // Too few tasks cannot decide for the candidate, and more samples of the same tasks would not help.
  const verdict: Verdict =
    pairs.length < minPairedTasks(level) || d.interval[1] <= gain
      ? "not-better"
      : d.interval[0] > gain && p < (1 - level) / 2
        ? "better"
        : "undecided";
  return {
    ...base,
    verdict,
    difference: d.difference,
    interval: d.interval,
    p,
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
