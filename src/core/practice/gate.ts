import { decide, evidenceLine, joinRounds, lookBudget, minPairedTasks, pairSamples, type TaskRewards } from "../evaluation/decision";
import type { Split } from "./dataset-types";
import type { GateDecision, PromoteMode } from "./run-types";

export type EvalSplit = Split;
export type EvalStatus = "pending" | "running" | "completed" | "failed" | "cancelled";

/**
 * One evaluation of one of a run's libraries: `epoch` names the library (0 the starting one),
 * `split` the tasks, `round` the draw (0 the first; later rounds score the same tasks with fresh
 * sampling seeds, the same on both sides of a comparison).
 */
export interface RunEvalResult {
  epoch: number;
  split: EvalSplit;
  round: number;
  status: EvalStatus;
  accuracy: number | null;
  interval: [number, number] | null;
  /** Each task's rewards, one per sample; null until it completed. */
  tasks: TaskRewards[] | null;
  tokens: number;
  costUsd: number;
}

export interface GateSettings {
  mode: PromoteMode;
  minGain: number;
  /** Seeds the decision's bootstrap. */
  seed: number;
  /** The split that judges the candidate, once (evaluate.split: the held-out split unless told otherwise). */
  judge: EvalSplit;
  /** The split `best` chooses its epoch on, which the judgment never sees. */
  select: EvalSplit;
  /** The epoch whose evaluation covers the final library; null when it was never evaluated (a run stopped mid-epoch). */
  finalEpoch: number | null;
  /** Extra rounds of paired samples the gate may draw while undecided (see lookBudget for the cap the task count sets). */
  maxRounds: number;
  /** Whether the run's budget has room for evaluations that cost this much more. */
  roomFor: (tokens: number, costUsd: number) => boolean;
}

export interface PromotionChoice {
  promote: boolean;
  /** The evaluated epoch whose library is promoted (gate and best); null for always and for no promotion. */
  epoch: number | null;
  reason: string;
  decision: GateDecision | null;
}

/** What the gate needs next: evaluations still settling, more evaluations, or its decision. */
export type GateStep =
  | { kind: "wait" }
  | { kind: "evaluate"; evals: { epoch: number; split: EvalSplit; round: number }[] }
  | { kind: "decide"; choice: PromotionChoice };

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const accuracyOf = (r: RunEvalResult) =>
  `${pct(r.accuracy!)}${r.interval ? ` [${pct(r.interval[0])}, ${pct(r.interval[1])}]` : ""} (epoch ${r.epoch})`;
const scored = (r: RunEvalResult | undefined): r is RunEvalResult => !!r && r.status === "completed" && r.accuracy !== null;
const settled = (r: RunEvalResult) => r.status !== "pending" && r.status !== "running";
const keep = (reason: string, decision: GateDecision | null = null): GateStep => ({
  kind: "decide",
  choice: { promote: false, epoch: null, reason, decision },
});

/**
 * The next step of a finishing run's promotion. `gate` judges the final library; `best` chooses
 * the epoch with the best accuracy on the selection split and judges that one. Either way the
 * judgment is one paired comparison with the starting library on the judging split (see
 * src/core/evaluation/decision.ts): promote only when the lower bound of the interval of
 * candidate − incumbent is above minGain and the sign-flip test agrees. While undecided the gate
 * asks for another round of paired samples, up to `maxRounds` (fewer when the held-out tasks are
 * too few to share the error rate among more looks) and as long as the budget has room for one,
 * then keeps the incumbent. `always` and `never` ignore the evidence (always reports it).
 */
export function gateStep(results: readonly RunEvalResult[], s: GateSettings): GateStep {
  if (s.mode === "never") return keep("promote is 'never': the learned library stays in the run");
  const find = (epoch: number, split: EvalSplit, round: number) =>
    results.find((r) => r.epoch === epoch && r.split === split && r.round === round);
  if (s.mode === "always") {
    const final = s.finalEpoch === null ? undefined : find(s.finalEpoch, s.judge, 0);
    const reason = scored(final) ? `promote is 'always'; ${s.judge} accuracy ${accuracyOf(final)}` : "promote is 'always'";
    return { kind: "decide", choice: { promote: true, epoch: null, reason, decision: null } };
  }

  let candidate: number;
  let selection: GateDecision["selection"] = null;
  if (s.mode === "gate") {
    if (s.finalEpoch === null)
      return keep(`gate closed: the final library has no ${s.judge} evaluation (the run stopped before evaluating it)`);
    if (s.finalEpoch === 0) return keep("gate closed: the run's library is still the starting library");
    candidate = s.finalEpoch;
  } else {
    const start = find(0, s.select, 0);
    if (!start || !settled(start)) return { kind: "wait" };
    if (!scored(start)) return keep(`best: the starting library's ${s.select} evaluation failed, so there is nothing to choose against`);
    let best = start;
    for (const r of results) if (r.split === s.select && r.round === 0 && scored(r) && r.accuracy! > best.accuracy! + 1e-9) best = r;
    if (best.epoch === 0) return keep(`best: no epoch beat the starting library's ${s.select} accuracy ${accuracyOf(start)}`);
    candidate = best.epoch;
    selection = { split: s.select, epoch: best.epoch, accuracy: best.accuracy! };
  }

  const incumbent = find(0, s.judge, 0);
  const judged = find(candidate, s.judge, 0);
  if (!incumbent || !judged) {
    const missing = [...(incumbent ? [] : [0]), ...(judged ? [] : [candidate])];
    // A judgment costs about what the costliest evaluation of the same split did.
    const costliest = results.filter((r) => r.split === s.judge && settled(r)).sort((a, b) => b.tokens - a.tokens)[0];
    if (!s.roomFor(missing.length * (costliest?.tokens ?? 0), missing.length * (costliest?.costUsd ?? 0)))
      return keep(`${s.mode}: the run's budget has no room left to judge epoch ${candidate} on ${s.judge}`);
    return { kind: "evaluate", evals: missing.map((epoch) => ({ epoch, split: s.judge, round: 0 })) };
  }
  if (!settled(incumbent) || !settled(judged)) return { kind: "wait" };
  if (!scored(incumbent)) return keep(`${s.mode}: the starting library's ${s.judge} evaluation failed, so there is no baseline to beat`);
  if (!scored(judged)) return keep(`${s.mode}: the ${s.judge} evaluation of epoch ${candidate} failed, so the gate stays closed`);

  // Rounds whose both sides completed count; a round still settling waits, a failed one ends the sampling.
  const rounds: [RunEvalResult, RunEvalResult][] = [];
  let broken = false;
  for (let r = 0; ; r++) {
    const a = find(0, s.judge, r);
    const b = find(candidate, s.judge, r);
    if (!a && !b) break;
    if ((a && !settled(a)) || (b && !settled(b))) return { kind: "wait" };
    if (!a?.tasks || !b?.tasks || !scored(a) || !scored(b)) {
      broken = true;
      break;
    }
    rounds.push([a, b]);
  }
  const pairs = joinRounds(rounds.map(([a, b]) => pairSamples(a.tasks!, b.tasks!)));
  // The looks are planned from the first round's task count, before anything is seen.
  const looks = lookBudget(pairSamples(incumbent.tasks ?? [], judged.tasks ?? []).length, 1 + s.maxRounds);
  const d = decide(pairs, { minGain: s.minGain, seed: s.seed, looks });
  const evidence: GateDecision = { ...d, split: s.judge, incumbentEpoch: 0, candidateEpoch: candidate, rounds: rounds.length, selection };
  const summary = `${s.judge} accuracy ${accuracyOf(judged)} against the starting library's ${accuracyOf(incumbent)}; ${evidenceLine(d)}`;
  const chose = selection
    ? `epoch ${candidate} had the best ${selection.split} accuracy ${pct(selection.accuracy)}; judged on ${s.judge}: `
    : "";
  const label = s.mode === "gate" ? "gate" : "best";
  if (d.verdict === "better")
    return {
      kind: "decide",
      choice: { promote: true, epoch: candidate, reason: `${label} passed: ${chose}${summary}`, decision: evidence },
    };
  if (d.verdict === "undecided" && !broken && rounds.length < looks) {
    const last = rounds[rounds.length - 1]!;
    if (s.roomFor(last[0].tokens + last[1].tokens, last[0].costUsd + last[1].costUsd))
      return {
        kind: "evaluate",
        evals: [0, candidate].map((epoch) => ({ epoch, split: s.judge, round: rounds.length })),
      };
  }
  const why =
    d.tasks < minPairedTasks(d.level)
      ? `only ${d.tasks} paired tasks, and the rule needs ${minPairedTasks(d.level)}`
      : d.verdict === "undecided"
        ? "not sure"
        : "not better";
  return keep(`${label} closed (${why}): ${chose}${summary}; the starting library stays`, evidence);
}

/**
 * `best` stops once `patience` evaluated epochs in a row have not beaten the best so far, on its
 * selection split. Only the settled prefix counts (evaluations may finish out of order), and a
 * failed evaluation says nothing either way, so it never stops a run.
 */
export function shouldStopEarly(results: readonly Pick<RunEvalResult, "epoch" | "status" | "accuracy">[], patience: number): boolean {
  const byEpoch = new Map(results.map((r) => [r.epoch, r]));
  let best = -Infinity;
  let since = 0;
  for (let e = 0; byEpoch.has(e); e++) {
    const r = byEpoch.get(e)!;
    if (r.status !== "completed" || r.accuracy === null) return false;
    if (r.accuracy > best + 1e-9) {
      best = r.accuracy;
      since = 0;
    } else since++;
  }
  return since >= patience;
}
