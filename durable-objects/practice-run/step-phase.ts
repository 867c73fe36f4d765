import { groupHasContrast } from "../../src/core/practice/plan";
import { epochBatches } from "../../src/core/practice/rng";
import type { UnitRef } from "../../src/core/practice/unit-key";
import type { UnitData, UnitResult } from "../../src/core/practice/units";
import { isGroupVerifier, isRemoteVerifier, majorityVerdicts, verifyAnswer } from "../../src/core/verifiers";
import type { RunBudget } from "./budget";
import type { LearnerPhase } from "./learner-phase";
import type { UnitRow } from "./store";
import { parseStored as parse } from "../../src/core/encoding";

/**
 * The step phase of a run: a step's batch of tasks is rolled out `groupSize` times each, every
 * rollout scored (by its verifier, a remote verify unit or the group's majority), and each group
 * kept only when its rewards differ. Kept groups go on to the learner phase (./learner-phase.ts).
 * Synchronous, inside the run's transaction.
 */
export class StepPhase {
  constructor(
    private readonly budget: RunBudget,
    private readonly learner: LearnerPhase,
  ) {}

  private get store() {
    return this.budget.store;
  }

  /** Opens a step: its batch and the library snapshot its rollouts see, then one rollout unit per task and sample. */
  startStep(epoch: number, step: number): void {
    if (!this.budget.mayProceed()) return;
    const cfg = this.store.config();
    const batch = epochBatches(this.store.taskCount(), cfg.batchSize, cfg.seed, epoch)[step] ?? [];
    const library = this.store.library();
    this.store.sql(
      "INSERT INTO steps (epoch, step, tasks, snapshot, status, started_at) VALUES (?, ?, ?, ?, 'running', ?) ON CONFLICT(epoch, step) DO NOTHING",
      epoch,
      step,
      JSON.stringify(batch),
      JSON.stringify(library),
      this.budget.now(),
    );
    this.store.updateRun({ epoch, step });
    this.store.event("stage", { epoch, step, stage: "rollout", tasks: batch.length });
    const refs: UnitRef[] = [];
    for (const task of batch) for (let r = 0; r < cfg.groupSize; r++) refs.push({ epoch, step, task, rollout: r, stage: "rollout" });
    this.budget.createUnits(refs);
  }

  /** Moves the step on from a unit's stored result. */
  advance(unit: UnitRow, result: UnitResult): void {
    const { epoch, step } = unit;
    const cfg = this.store.config();
    switch (unit.stage) {
      case "rollout": {
        const d = result.data as UnitData["rollout"] | undefined;
        if (result.error || !d) {
          this.setReward(unit.key, 0, `rollout failed: ${result.error ?? "no answer"}`);
        } else if (isRemoteVerifier(cfg.verifier)) {
          this.budget.createUnits([{ epoch, step, task: unit.task, rollout: unit.rollout, stage: "verify" }]);
        } else if (!isGroupVerifier(cfg.verifier)) {
          const task = this.store.task(unit.task!);
          const v = verifyAnswer(cfg.verifier, { task: task.task, answer: d.answer, groundTruth: task.ground_truth });
          this.setReward(unit.key, v.reward, v.reasoning);
        }
        this.store.event("rollout", { epoch, step, task: unit.task, rollout: unit.rollout, ...this.rolloutProgress(epoch, step) });
        this.closeGroup(epoch, step, unit.task!);
        return;
      }
      case "verify": {
        const v = result.data as UnitData["verify"] | undefined;
        const rolloutKey = unit.key.replace(/\.verify$/, ".rollout");
        if (result.error || !v) this.setReward(rolloutKey, 0, `verification failed: ${result.error ?? "no verdict"}`);
        else this.setReward(rolloutKey, v.reward, v.reasoning);
        this.closeGroup(epoch, step, unit.task!);
        return;
      }
      default:
        this.learner.advance(unit);
    }
  }

  private setReward(rolloutKey: string, reward: number, verdict: string): void {
    this.store.sql(
      "UPDATE units SET reward = ?, verdict = ? WHERE key = ?",
      Math.min(1, Math.max(0, reward)),
      verdict.slice(0, 2000),
      rolloutKey,
    );
  }

  private rolloutProgress(epoch: number, step: number) {
    const r = this.store.sqlOne<{ done: number; total: number }>(
      "SELECT SUM(status = 'done') AS done, COUNT(*) AS total FROM units WHERE epoch = ? AND step = ? AND stage = 'rollout'",
      epoch,
      step,
    );
    return { done: r.done ?? 0, total: r.total };
  }

  /** Once every rollout of a group is scored, keeps the group only when its rewards differ. */
  private closeGroup(epoch: number, step: number, task: number): void {
    if (this.store.group(epoch, step, task)) return;
    const cfg = this.store.config();
    const rollouts = this.store.stepUnits(epoch, step, "rollout", task);
    if (rollouts.length < cfg.groupSize || rollouts.some((r) => r.status !== "done")) return;
    if (isGroupVerifier(cfg.verifier)) {
      const answered = rollouts.filter((r) => r.reward === null);
      const answers = answered.map((r) => parse<UnitResult<UnitData["rollout"]>>(r.result)?.data?.answer ?? "");
      majorityVerdicts(answers).forEach((v, i) => this.setReward(answered[i]!.key, v.reward, v.reasoning));
    }
    const rewards = this.store.stepUnits(epoch, step, "rollout", task).map((r) => r.reward);
    if (rewards.some((r) => r === null)) return;
    const values = rewards as number[];
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const kept = groupHasContrast(values);
    const reason = kept ? "rewards differ" : mean >= 1 ? "all correct" : mean <= 0 ? "all wrong" : "no spread in rewards";
    this.store.sql(
      "INSERT INTO groups (epoch, step, task, kept, mean_reward, rewards, reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
      epoch,
      step,
      task,
      kept ? 1 : 0,
      mean,
      JSON.stringify(values),
      reason,
    );
    this.store.event("group", { epoch, step, task: this.store.task(task).task_id, kept, meanReward: mean, reason });
    if (kept) this.learner.groupKept(epoch, step, task);
    this.learner.closeStep(epoch, step);
  }
}
