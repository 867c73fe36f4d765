import { applyPlan, enforceCap, resolvePlan, screenPlan, type RunExperience } from "../../src/core/practice/plan";
import { DEFAULT_MAX_EXPERIENCES } from "../../src/core/practice/run-types";
import type { UnitData, UnitResult } from "../../src/core/practice/units";
import type { RunStore } from "./store";
import { keptProposals } from "./unit-inputs";
import { parseStored as parse } from "../../src/core/encoding";
import { hindsightLessons, planProvenance, refuseLeakedOps } from "./hindsight-step";

/**
 * What a finished step makes of the run's library: the batch plan (screened by the safety review,
 * resolved against the step's snapshot) applied, the library cap enforced, and the step's record
 * for the API (groups, proposals, plan, what was dropped and why, errors, the diff). Nothing here writes.
 */
export function stepOutcome(store: RunStore, epoch: number, step: number, snapshot: RunExperience[]) {
  const run = store.mustRun();
  const cfg = store.config();
  const batchUnit = store.stepUnits(epoch, step, "batch")[0];
  const batch = parse<UnitResult<UnitData["batch"]>>(batchUnit?.result ?? null);
  const plan = batch?.data ?? { reasoning: "", operations: [], review: [] };
  const proposals = keptProposals(store, epoch, step, snapshot);
  const screened = screenPlan(plan.operations, plan.review ?? null);
  const resolvedPlan = resolvePlan(screened.ops, snapshot);
  const leaks = refuseLeakedOps(store, epoch, step, resolvedPlan.ops, proposals.groups, snapshot);
  const resolved = { ops: leaks.ops, dropped: [...resolvedPlan.dropped, ...leaks.dropped] };
  const runTag = run.run_id.replace(/^run_/, "");
  const planned = applyPlan(snapshot, resolved.ops, { epoch, step }, (i) => `px_${runTag}_${epoch}_${step}_${i}`);
  const origin = planProvenance(resolved.ops, proposals.groups, snapshot, planned.library, planned.changes);
  const cap = cfg.maxExperiences ?? DEFAULT_MAX_EXPERIENCES;
  const { library, evicted } = enforceCap(planned.library, cap, run.prior_q);
  const changes = [
    ...planned.changes.map((c, i) => ({ ...c, provenance: origin.byChange[i] })),
    ...evicted.map((e) => ({
      op: "delete" as const,
      id: e.id,
      before: e.text,
      after: null,
      reason: `library cap: at most ${cap} lessons; this one had the least utility`,
    })),
  ];

  const rollouts = store.sqlAll<{ reward: number | null }>(
    "SELECT reward FROM units WHERE epoch = ? AND step = ? AND stage = 'rollout'",
    epoch,
    step,
  );
  const rewards = rollouts.map((r) => r.reward ?? 0);
  const meanReward = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
  const groups = store.groups(epoch, step).map((g) => ({
    taskId: store.task(g.task).task_id,
    kept: g.kept === 1,
    meanReward: g.mean_reward,
    rewards: JSON.parse(g.rewards) as number[],
    reason: g.reason,
  }));
  const record = {
    groups,
    proposals: proposals.groups.map((g) => ({ taskId: g.taskId, provenance: g.provenance, analysis: g.analysis, operations: g.proposals })),
    plan: { reasoning: plan.reasoning, operations: resolved.ops.map((o, i) => ({ ...o, provenance: origin.byOp[i] })) },
    hindsight: {
      ...proposals.hindsight,
      refusedLeaks: proposals.hindsight.refusedLeaks + leaks.dropped.length,
      applied: origin.byOp.filter((p) => p === "hindsight").length,
      inLibrary: hindsightLessons(library),
    },
    dropped: [...proposals.dropped, ...screened.dropped, ...resolved.dropped],
    errors: [
      ...proposals.errors,
      ...(batch?.error ? [{ taskId: null, stage: "batch", error: batch.error }] : []),
      ...(plan.reviewError ? [{ taskId: null, stage: "batch", error: `safety review failed: ${plan.reviewError}` }] : []),
    ],
    diff: changes,
  };
  return { library, changes, record, meanReward, groups };
}
