import type { RunExperience } from "../../src/core/practice/plan";
import type { RunBudget } from "./budget";
import type { RunEvaluations } from "./evaluations";
import type { UnitRow } from "./store";
import { keptProposals } from "./unit-inputs";
import { stepOutcome } from "./step-outcome";
import { hindsightWork } from "./hindsight-step";

/**
 * The learner phase of a step (Training-Free GRPO's update): each kept group is summarised and
 * turned into a group advantage (proposed library operations), the step's proposals are reconciled
 * in one batch update, and the result becomes the library the next step starts from. Synchronous,
 * inside the run's transaction.
 */
export class LearnerPhase {
  constructor(
    private readonly budget: RunBudget,
    private readonly evals: RunEvaluations,
    /** Opens the next step (the step phase's startStep). */
    private readonly startStep: (epoch: number, step: number) => void,
  ) {}

  private get store() {
    return this.budget.store;
  }

  /** A group whose rewards differ is summarised first. */
  groupKept(epoch: number, step: number, task: number): void {
    this.budget.createUnits([{ epoch, step, task, rollout: null, stage: "summary" }]);
  }

  /** Moves the learner on from a summary, advantage or batch unit's stored result. */
  advance(unit: UnitRow): void {
    const { epoch, step } = unit;
    switch (unit.stage) {
      case "summary":
        this.budget.createUnits([{ epoch, step, task: unit.task, rollout: null, stage: "advantage" }]);
        return;
      case "advantage":
      case "hindsight":
        this.closeStep(epoch, step);
        return;
      case "batch":
        this.applyStep(epoch, step);
        return;
    }
  }

  /** When every group is filtered or has its proposals (and hindsight its answers), reconciles them in one batch update (or none). */
  closeStep(epoch: number, step: number): void {
    const s = this.store.step(epoch, step);
    if (!s || s.status !== "running") return;
    const tasks = JSON.parse(s.tasks) as number[];
    const groups = this.store.groups(epoch, step);
    if (groups.length < tasks.length) return;
    // All-wrong groups with a reference get their hindsight calls once every group is closed.
    const hindsight = hindsightWork(this.store, epoch, step);
    if (hindsight.create.length) this.budget.createUnits(hindsight.create);
    for (const g of groups.filter((g) => g.kept)) {
      const adv = this.store.stepUnits(epoch, step, "advantage", g.task)[0];
      if (!adv || adv.status !== "done") return;
    }
    if (hindsight.create.length || hindsight.waiting) return;
    if (this.store.stepUnits(epoch, step, "batch").length > 0) return;
    const { groups: proposals } = keptProposals(this.store, epoch, step, JSON.parse(s.snapshot) as RunExperience[]);
    if (proposals.some((g) => g.proposals.length > 0)) {
      this.store.event("stage", { epoch, step, stage: "batch" });
      this.budget.createUnits([{ epoch, step, task: null, rollout: null, stage: "batch" }]);
      return;
    }
    this.applyStep(epoch, step);
  }

  /** Applies the step's reconciled update to the library, queues an evaluation at an epoch's end and opens the next step. */
  applyStep(epoch: number, step: number): void {
    const s = this.store.step(epoch, step);
    if (!s || s.status !== "running" || !this.budget.active()) return;
    const run = this.store.mustRun();
    const cfg = this.store.config();
    const { library, changes, record, meanReward, groups } = stepOutcome(
      this.store,
      epoch,
      step,
      JSON.parse(s.snapshot) as RunExperience[],
    );
    this.store.sql(
      "UPDATE steps SET status = 'done', record = ?, mean_reward = ?, library_size = ?, ended_at = ? WHERE epoch = ? AND step = ?",
      JSON.stringify(record),
      meanReward,
      library.length,
      this.budget.now(),
      epoch,
      step,
    );
    this.store.updateRun({ library: JSON.stringify(library) });
    this.store.event("step", {
      epoch,
      step,
      meanReward,
      kept: groups.filter((g) => g.kept).length,
      filtered: groups.filter((g) => !g.kept).length,
      changes: changes.length,
      dropped: record.dropped.length,
      librarySize: library.length,
    });
    const perEpoch = run.steps_per_epoch;
    const evaluate = cfg.evaluate;
    if (evaluate && step + 1 >= perEpoch && (evaluate.every === "epoch" || epoch + 1 >= cfg.epochs)) this.evals.queue(epoch + 1, library);
    if (step + 1 < perEpoch) this.startStep(epoch, step + 1);
    else if (epoch + 1 < cfg.epochs) this.startStep(epoch + 1, 0);
    else this.store.updateRun({ finishing: "completed" });
  }
}
