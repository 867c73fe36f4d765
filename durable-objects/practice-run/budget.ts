import { unitKey, type UnitRef } from "../../src/core/practice/unit-key";
import type { UnitLedger } from "../unit-ledger";
import type { RunStore } from "./store";

/**
 * What every phase of a run checks before it creates work: that the run is still going and its
 * budget (its own rollouts plus its held-out evaluations) is not spent. A spent budget stops the
 * run between stages, keeping what its finished steps learned.
 */
export class RunBudget {
  constructor(
    readonly store: RunStore,
    readonly ledger: UnitLedger,
    readonly now: () => number,
  ) {}

  /** Running and not finishing: the run still takes on work. */
  active(): boolean {
    const run = this.store.mustRun();
    return run.status === "running" && run.finishing === null;
  }

  overBudget(): boolean {
    const budget = this.store.config().budget;
    if (!budget) return false;
    const run = this.store.mustRun();
    // The run's held-out evaluations are part of what it spends.
    const evals = this.store.sqlOne<{ tokens: number; cost: number }>("SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS cost FROM evals");
    return (
      (budget.maxTokens !== undefined && run.tokens_in + run.tokens_out + evals.tokens >= budget.maxTokens) ||
      (budget.maxCostUsd !== undefined && run.cost_usd + evals.cost >= budget.maxCostUsd)
    );
  }

  /** Stops the run between stages: the step in flight is abandoned, finished steps' learning is kept. */
  stopForBudget(reason: string): void {
    const run = this.store.mustRun();
    if (run.finishing || run.status !== "running") return;
    this.abandonStep(run.epoch, run.step);
    this.store.updateRun({ finishing: "budget-exhausted", error: reason });
    this.store.event("budget", { reason, epoch: run.epoch, step: run.step });
  }

  abandonStep(epoch: number, step: number): void {
    this.store.sql("UPDATE steps SET status = 'abandoned', ended_at = ? WHERE epoch = ? AND step = ? AND status = 'running'", this.now(), epoch, step);
  }

  /** Checks the run may still spend; a spent budget stops it instead. */
  mayProceed(): boolean {
    if (!this.active()) return false;
    if (!this.overBudget()) return true;
    this.stopForBudget("the run's budget is spent");
    return false;
  }

  /** Creates units unless the run's budget is spent, which stops the run instead. */
  createUnits(refs: UnitRef[]): void {
    if (!this.mayProceed()) return;
    for (const r of refs) this.ledger.create(unitKey(r), { epoch: r.epoch, step: r.step, task: r.task, rollout: r.rollout, stage: r.stage });
  }
}
