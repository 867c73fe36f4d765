import { choosePromotion, type EpochResult, type PromotionChoice } from "../../src/core/practice/gate";
import type { RunExperience } from "../../src/core/practice/plan";
import type { EvaluationOutcome } from "../../src/core/practice/ports";
import { isTerminal } from "../../src/core/practice/run-types";
import type { EvalRow, RunStore } from "./store";

const sameLibrary = (a: readonly RunExperience[], b: readonly RunExperience[]) =>
  a.length === b.length && a.every((e, i) => e.id === b[i]!.id && e.text === b[i]!.text);

/**
 * The run's held-out evaluations, one per evaluated epoch (0 is the starting library): queued
 * here, launched and stopped by the shell, their results recorded once, and the promotion choice
 * made from them. Synchronous, inside the run's transaction.
 */
export class RunEvaluations {
  constructor(
    private readonly store: RunStore,
    private readonly now: () => number,
  ) {}

  /** Records that a library of the run is to be evaluated on held-out tasks; the shell launches it. */
  queue(epoch: number, library: readonly RunExperience[]): void {
    const runTag = this.store.mustRun().run_id.replace(/^run_/, "");
    this.store.sql(
      "INSERT INTO evals (epoch, evaluation_id, library, status, created_at) VALUES (?, ?, ?, 'pending', ?) ON CONFLICT(epoch) DO NOTHING",
      epoch,
      `ev_${runTag}e${epoch}`,
      JSON.stringify(library),
      this.now(),
    );
    this.store.event("evaluation", { epoch, status: "pending", librarySize: library.length });
  }

  toLaunch(): EvalRow[] {
    return isTerminal(this.store.mustRun().status) ? [] : this.store.evals("pending");
  }

  running(): EvalRow[] {
    return this.store.evals("running");
  }

  launched(epoch: number): void {
    this.store.sql("UPDATE evals SET status = 'running' WHERE epoch = ? AND status = 'pending'", epoch);
  }

  settledResults(): EpochResult[] {
    return this.store
      .evals()
      .filter((e) => e.status === "completed" || e.status === "failed")
      .map((e) => ({
        epoch: e.epoch,
        status: e.status as EpochResult["status"],
        accuracy: e.accuracy,
        interval: e.interval_low === null || e.interval_high === null ? null : [e.interval_low, e.interval_high],
      }));
  }

  /** Stores an evaluation's result once. False when it was no longer pending or running. */
  record(epoch: number, out: EvaluationOutcome): boolean {
    const row = this.store.evals().find((e) => e.epoch === epoch);
    if (!row || (row.status !== "pending" && row.status !== "running")) return false;
    this.store.sql(
      "UPDATE evals SET status = ?, accuracy = ?, interval_low = ?, interval_high = ?, tokens = ?, cost_usd = ?, error = ?, ended_at = ? WHERE epoch = ?",
      out.status,
      out.accuracy,
      out.interval?.[0] ?? null,
      out.interval?.[1] ?? null,
      out.tokens,
      out.costUsd,
      out.error,
      this.now(),
      epoch,
    );
    this.store.event("evaluation", { epoch, status: out.status, holdoutAccuracy: out.accuracy, interval: out.interval, error: out.error });
    return true;
  }

  /** A finishing run promotes only once every evaluation it started has settled. */
  settled(): boolean {
    return this.store.evals("pending", "running").length === 0;
  }

  /** Which library the finished run promotes, and why (see choosePromotion). */
  promotionPlan(): { choice: PromotionChoice; library: RunExperience[] } {
    const cfg = this.store.config();
    const current = this.store.library();
    const evals = this.store.evals();
    const final = [...evals].reverse().find((e) => sameLibrary(JSON.parse(e.library) as RunExperience[], current));
    const choice = choosePromotion(cfg.promote ?? "always", this.settledResults(), {
      minGain: cfg.minGain ?? 0,
      finalEpoch: final?.epoch ?? null,
    });
    const chosen = choice.promote && choice.epoch !== null ? evals.find((e) => e.epoch === choice.epoch) : undefined;
    return { choice, library: chosen ? (JSON.parse(chosen.library) as RunExperience[]) : current };
  }

  /** Evaluations the ended run must still stop: the shell cancels them and reports back with evaluationStopped. */
  toStop(): EvalRow[] {
    const run = this.store.mustRun();
    return run.status === "cancelled" || run.status === "failed" ? this.store.evals("pending", "running") : [];
  }

  stopped(epoch: number): void {
    this.store.sql(
      "UPDATE evals SET status = 'cancelled', error = ?, ended_at = ? WHERE epoch = ? AND status IN ('pending', 'running')",
      `the run ${this.store.mustRun().status === "failed" ? "failed" : "was cancelled"}`,
      this.now(),
      epoch,
    );
  }
}
