import {
  attributePlan,
  checkHindsight,
  citedLabels,
  FAILED_BELOW,
  hindsightCap,
  hindsightSeed,
  originOf,
  pickHindsight,
  quotesReference,
  suspectLabels,
  type HindsightCandidate,
  type HindsightLesson,
  type ProvenanceKind,
  type SourcedProposal,
} from "../../src/core/practice/hindsight";
import { labelOf, type DroppedOp, type LibraryChange, type ResolvedOp, type RunExperience } from "../../src/core/practice/plan";
import type { HindsightTotals } from "../../src/core/practice/run-types";
import type { UnitRef } from "../../src/core/practice/unit-key";
import type { BatchGroup, UnitData, UnitInput, UnitResult } from "../../src/core/practice/units";
import { isRemoteVerifier } from "../../src/core/verifiers";
import type { RunStore, StepRow, UnitRow } from "./store";
import { parseStored as parse } from "../../src/core/encoding";

/**
 * The PracticeRun's side of hindsight (rules in src/core/practice/hindsight.ts): which all-wrong
 * groups of a step get a hindsight unit, what the unit is given, and what its answers add to the
 * step's batch update and record. Nothing here writes; the machine creates the units.
 */

interface Attempt {
  answer: string;
  trajectory: string | null;
  reward: number;
  verdict: string | null;
  answered: boolean;
}

/** A group's attempts, with the verifier's reasons where they are an independent signal (a judge's or a webhook's). */
function attemptsOf(store: RunStore, epoch: number, step: number, task: number): Attempt[] {
  const remote = isRemoteVerifier(store.config().verifier);
  const verified = new Set(
    remote
      ? store
          .stepUnits(epoch, step, "verify", task)
          .filter((v) => v.status === "done" && !v.error && parse<UnitResult<UnitData["verify"]>>(v.result)?.data?.reasoning?.trim())
          .map((v) => v.rollout)
      : [],
  );
  return store.stepUnits(epoch, step, "rollout", task).map((r) => {
    const d = parse<UnitResult<UnitData["rollout"]>>(r.result)?.data;
    return {
      answer: d?.answer ?? "",
      trajectory: d?.trajectory ?? null,
      reward: r.reward ?? 0,
      // A pure verifier's reason restates the ground truth, so it is no signal of its own.
      verdict: verified.has(r.rollout) ? r.verdict : null,
      answered: !!d && !r.error,
    };
  });
}

const referenceOf = (store: RunStore, task: number) => {
  const gt = store.task(task).ground_truth;
  return store.config().useGroundTruth && gt ? gt : null;
};

/** The step's hindsight choice: made once every group is closed, and the same whenever it is made again. */
function choice(store: RunStore, s: StepRow) {
  const cfg = store.config();
  const stepTasks = (JSON.parse(s.tasks) as number[]).length;
  const cap = hindsightCap(cfg, stepTasks);
  const librarySize = (JSON.parse(s.snapshot) as unknown[]).length;
  if (cap === 0) return { cap, picked: [], overCap: [] };
  // Only groups whose every rollout failed can qualify; the others' attempts are not even read.
  const candidates: HindsightCandidate[] = store
    .groups(s.epoch, s.step)
    .filter((g) => !g.kept && (JSON.parse(g.rewards) as number[]).every((r) => r < FAILED_BELOW))
    .map((g) => {
      const attempts = attemptsOf(store, s.epoch, s.step, g.task);
      const trajectories = attempts.map((a) => a.trajectory ?? a.answer);
      return {
        task: g.task,
        rewards: JSON.parse(g.rewards) as number[],
        answered: attempts.filter((a) => a.answered).length,
        hasSignal: referenceOf(store, g.task) !== null || attempts.some((a) => a.verdict),
        citesLesson: citedLabels(trajectories, librarySize).length > 0,
      };
    });
  return { cap, ...pickHindsight(candidates, cap, hindsightSeed(cfg.seed, s.epoch, s.step)) };
}

/**
 * What the step still needs from hindsight before its batch update, once every group is closed:
 * the units to create (none when the run turned hindsight off or no group qualifies), and whether
 * any created one is still out.
 */
export function hindsightWork(store: RunStore, epoch: number, step: number): { create: UnitRef[]; waiting: boolean } {
  const s = store.step(epoch, step);
  if (!s) return { create: [], waiting: false };
  // The step's hindsight units are created together, so once some exist they are the choice.
  const units = store.stepUnits(epoch, step, "hindsight");
  if (units.length) return { create: [], waiting: units.some((u) => u.status !== "done") };
  const { picked } = choice(store, s);
  return { create: picked.map((task) => ({ epoch, step, task, rollout: null, stage: "hindsight" as const })), waiting: picked.length > 0 };
}

/** What a claimed hindsight unit is given. */
export function hindsightInput(
  store: RunStore,
  u: UnitRow,
  ctx: { runId: string; tenantId: string; agentId: string },
  snapshot: readonly RunExperience[],
): UnitInput {
  const attempts = attemptsOf(store, u.epoch, u.step, u.task!);
  return {
    ...ctx,
    stage: "hindsight",
    task: store.task(u.task!).task,
    reference: referenceOf(store, u.task!),
    library: snapshot.map((e, i) => ({ label: labelOf(i), text: e.text })),
    suspects: suspectLabels(
      attempts.map((a) => a.trajectory ?? a.answer),
      snapshot.length,
    ),
    attempts: attempts.map(({ answered: _a, ...a }) => a),
  };
}

export interface HindsightStats {
  /** The most hindsight calls the step could make. */
  cap: number;
  /** Groups given a hindsight call, and all-wrong groups left out by the cap. */
  calls: number;
  overCap: string[];
  /** Proposals that entered the batch update. */
  proposals: number;
  /** Lessons refused because they stated their task's reference answer. */
  refusedLeaks: number;
}

/** The hindsight groups' proposals, checked, ready for the batch update beside the kept groups'. */
export function hindsightProposals(store: RunStore, epoch: number, step: number, snapshot: readonly RunExperience[]) {
  const groups: BatchGroup[] = [];
  const dropped: DroppedOp[] = [];
  const errors: { taskId: string; stage: "hindsight"; error: string }[] = [];
  const s = store.step(epoch, step);
  const stats: HindsightStats = { cap: 0, calls: 0, overCap: [], proposals: 0, refusedLeaks: 0 };
  if (!s) return { groups, dropped, errors, stats };
  const { cap, overCap } = choice(store, s);
  stats.cap = cap;
  stats.overCap = overCap.map((t) => store.task(t).task_id);
  for (const unit of store.stepUnits(epoch, step, "hindsight")) {
    const task = store.task(unit.task!);
    const res = parse<UnitResult<HindsightLesson>>(unit.result);
    stats.calls++;
    if (res?.error) errors.push({ taskId: task.task_id, stage: "hindsight", error: res.error });
    if (!res?.data) continue;
    const suspects = suspectLabels(
      attemptsOf(store, epoch, step, unit.task!).map((a) => a.trajectory ?? a.answer),
      snapshot.length,
    );
    const checked = checkHindsight(res.data.operation, snapshot, suspects, task.ground_truth, `hindsight ${task.task_id}`);
    dropped.push(...checked.dropped);
    if (checked.leaked) stats.refusedLeaks++;
    stats.proposals += checked.kept.length;
    groups.push({ taskId: task.task_id, task: task.task, analysis: res.data.diagnosis, proposals: checked.kept, provenance: "hindsight" });
  }
  return { groups, dropped, errors, stats };
}

/** How a plan operation is traced to the proposals (see attributePlan). */
function traceOps(ops: readonly ResolvedOp[], groups: readonly BatchGroup[], snapshot: readonly RunExperience[]) {
  const index = new Map(snapshot.map((e, i) => [e.id, i]));
  const proposals: SourcedProposal[] = groups.flatMap((g) =>
    g.proposals.map((p) => ({ ...p, provenance: g.provenance ?? ("contrast" as ProvenanceKind) })),
  );
  const traced = ops.map((o) => ({
    op: o.op,
    text: o.op === "delete" ? "" : o.text,
    targets: (o.op === "add" ? [] : o.op === "merge" ? o.ids : [o.id]).map((id) => index.get(id)!),
  }));
  return attributePlan(traced, proposals);
}

/**
 * Plan operations traced to hindsight that state the reference answer of one of the step's
 * hindsight tasks. The batch update saw that answer in the hindsight diagnosis, so a lesson it
 * wrote from a proposal that passed checkHindsight can still give the answer away: refused here
 * too, and counted with the refused proposals.
 */
export function refuseLeakedOps(
  store: RunStore,
  epoch: number,
  step: number,
  ops: readonly ResolvedOp[],
  groups: readonly BatchGroup[],
  snapshot: readonly RunExperience[],
) {
  const references = store
    .stepUnits(epoch, step, "hindsight")
    .map((u) => store.task(u.task!).ground_truth)
    .filter((r): r is string => !!r);
  if (!references.length) return { ops: [...ops], dropped: [] as DroppedOp[] };
  const byOp = traceOps(ops, groups, snapshot);
  const kept: ResolvedOp[] = [];
  const dropped: DroppedOp[] = [];
  ops.forEach((o, i) => {
    if (o.op !== "delete" && byOp[i] === "hindsight" && references.some((r) => quotesReference(o.text, r))) {
      dropped.push({
        source: "hindsight",
        op: o,
        reason: "quotes the reference answer of a task learned in hindsight: a lesson must generalise, not give the answer away",
      });
    } else kept.push(o);
  });
  return { ops: kept, dropped };
}

/**
 * The provenance of each resolved plan operation and of each library change it made (changes come
 * out of applyPlan in operation order: one per add, modify and delete, one plus a delete per
 * further target for a merge), and the library with its hindsight lineage marked.
 */
export function planProvenance(
  ops: readonly ResolvedOp[],
  groups: readonly BatchGroup[],
  snapshot: readonly RunExperience[],
  library: RunExperience[],
  changes: readonly LibraryChange[],
) {
  const byOp = traceOps(ops, groups, snapshot);
  const byChange: ProvenanceKind[] = [];
  ops.forEach((o, i) => {
    for (let k = 0; k < (o.op === "merge" ? o.ids.length : 1); k++) byChange.push(byOp[i]!);
  });
  const hindsightIds = new Set(changes.flatMap((c, i) => (byChange[i] === "hindsight" && c.op !== "delete" ? [c.id] : [])));
  for (const e of library) {
    const last = e.lineage[e.lineage.length - 1];
    if (hindsightIds.has(e.id) && last && last.op !== "start") last.provenance = "hindsight";
  }
  return { byOp, byChange };
}

/** How many lessons of a library were last written by hindsight. */
export const hindsightLessons = (library: readonly RunExperience[]) => library.filter((e) => originOf(e) === "hindsight").length;

/** The run's hindsight totals: calls from the ledger (the step in flight included), the rest from finished steps' records. */
export function hindsightTotals(store: RunStore): HindsightTotals {
  const calls = store.sqlOne<{ n: number }>("SELECT COUNT(*) AS n FROM units WHERE stage = 'hindsight' AND status = 'done'").n;
  // Summed inside SQLite: a long run's step records are too many to parse here on every view.
  const r = store.sqlOne<{ proposals: number | null; refused: number | null; applied: number | null }>(
    `SELECT SUM(json_extract(record, '$.hindsight.proposals')) AS proposals, SUM(json_extract(record, '$.hindsight.refusedLeaks')) AS refused,
            SUM(json_extract(record, '$.hindsight.applied')) AS applied FROM steps WHERE status = 'done' AND record IS NOT NULL`,
  );
  return {
    calls,
    proposals: r.proposals ?? 0,
    refusedLeaks: r.refused ?? 0,
    applied: r.applied ?? 0,
    inLibrary: hindsightLessons(store.library()),
  };
}
