import { labelOf, validateProposals, type DroppedOp, type GroupAdvantage, type RunExperience } from "../../src/core/practice/plan";
import { rolloutSeed } from "../../src/core/practice/rng";
import { DEFAULT_MAX_EXPERIENCES } from "../../src/core/practice/run-types";
import { rolloutIdOf, type UnitStage } from "../../src/core/practice/unit-key";
import type { BatchGroup, LibraryLine, UnitData, UnitInput, UnitResult } from "../../src/core/practice/units";
import type { RunRow, RunStore, UnitRow } from "./store";
import { hindsightInput, hindsightProposals } from "./hindsight-step";

/**
 * What a practice unit is given to run, assembled from the run's stored state when the unit is
 * claimed: the step's library snapshot, the task, earlier stages' results. Nothing here writes.
 */

export const lines = (lib: readonly RunExperience[]): LibraryLine[] => lib.map((e, i) => ({ label: labelOf(i), text: e.text }));

/** The subscribed libraries' lessons the run began with, by their own `S#` labels (as the agent's prompt shows them). */
export const sharedLines = (run: Pick<RunRow, "shared">): LibraryLine[] =>
  (JSON.parse(run.shared) as { text: string }[]).map((e, i) => ({ label: `S${i}`, text: e.text }));
import { parseStored as parse } from "../../src/core/encoding";

/** The library as the step began, which every unit of the step sees. */
export function snapshotOf(store: RunStore, epoch: number, step: number): RunExperience[] {
  const s = store.step(epoch, step);
  return s ? (JSON.parse(s.snapshot) as RunExperience[]) : [];
}

/** The input a consumer needs to run a claimed unit. */
export function unitInput(store: RunStore, u: UnitRow, runId: string): UnitInput {
  const run = store.mustRun();
  const cfg = store.config();
  const ctx = { runId, tenantId: run.tenant_id, agentId: run.agent_id };
  const snapshot = snapshotOf(store, u.epoch, u.step);
  const library = lines(snapshot);
  const stage = u.stage;
  if (stage === "batch") {
    return {
      ...ctx,
      stage,
      library,
      maxExperiences: cfg.maxExperiences ?? DEFAULT_MAX_EXPERIENCES,
      groups: keptProposals(store, u.epoch, u.step, snapshot).groups,
    };
  }
  if (stage === "hindsight") return hindsightInput(store, u, ctx, snapshot);
  const task = store.task(u.task!);
  const reference = cfg.useGroundTruth ? task.ground_truth : null;
  if (stage === "rollout") {
    return {
      ...ctx,
      stage,
      rolloutId: rolloutIdOf(runId, u.key, u.dispatch_id),
      taskId: task.task_id,
      task: task.task,
      policy: cfg.policy,
      library: [...library, ...sharedLines(run)],
      seed: rolloutSeed(cfg.seed, u.epoch, u.task!, u.rollout!),
    };
  }
  const rollouts = store.stepUnits(u.epoch, u.step, "rollout", u.task!);
  if (stage === "verify") {
    const rollout = rollouts.find((r) => r.rollout === u.rollout)!;
    const answer = parse<UnitResult<UnitData["rollout"]>>(rollout.result)?.data?.answer ?? "";
    return { ...ctx, stage, taskId: task.task_id, task: task.task, answer, groundTruth: task.ground_truth, verifier: cfg.verifier };
  }
  const attempts = rollouts.map((r) => {
    const d = parse<UnitResult<UnitData["rollout"]>>(r.result)?.data;
    return { answer: d?.answer ?? "", trajectory: d?.trajectory ?? null, reward: r.reward ?? 0 };
  });
  if (stage === "summary") return { ...ctx, stage, task: task.task, reference, library, attempts };
  const summaryUnit = store.stepUnits(u.epoch, u.step, "summary", u.task!)[0];
  const summaries = parse<UnitResult<UnitData["summary"]>>(summaryUnit?.result ?? null)?.data?.summaries ?? [];
  return {
    ...ctx,
    stage: "advantage",
    task: task.task,
    reference,
    library,
    maxOps: cfg.maxOpsPerGroup,
    attempts: attempts.map((a, i) => ({ summary: summaries[i] ?? "(no summary)", answer: a.answer, reward: a.reward })),
  };
}

/**
 * The kept groups' proposals, validated against the step's snapshot, then the hindsight groups'
 * (see hindsight-step.ts), with what was dropped and which units failed.
 */
export function keptProposals(store: RunStore, epoch: number, step: number, snapshot: RunExperience[]) {
  const cfg = store.config();
  const groups: BatchGroup[] = [];
  const dropped: DroppedOp[] = [];
  const errors: { taskId: string; stage: UnitStage; error: string }[] = [];
  for (const g of store.groups(epoch, step).filter((g) => g.kept)) {
    const task = store.task(g.task);
    const summary = store.stepUnits(epoch, step, "summary", g.task)[0];
    if (summary?.error) errors.push({ taskId: task.task_id, stage: "summary", error: summary.error });
    const unit = store.stepUnits(epoch, step, "advantage", g.task)[0];
    const res = parse<UnitResult<GroupAdvantage>>(unit?.result ?? null);
    if (res?.error) errors.push({ taskId: task.task_id, stage: "advantage", error: res.error });
    const v = validateProposals(res?.data?.operations ?? [], snapshot, cfg.maxOpsPerGroup, `group ${task.task_id}`);
    dropped.push(...v.dropped);
    groups.push({ taskId: task.task_id, task: task.task, analysis: res?.data?.analysis ?? "", proposals: v.kept, provenance: "contrast" });
  }
  const h = hindsightProposals(store, epoch, step, snapshot);
  return { groups: [...groups, ...h.groups], dropped: [...dropped, ...h.dropped], errors: [...errors, ...h.errors], hindsight: h.stats };
}
