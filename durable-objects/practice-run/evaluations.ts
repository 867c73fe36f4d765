import type { TaskRewards } from "../../src/core/evaluation/decision";
import type { Split } from "../../src/core/practice/dataset-types";
import { gateStep, type PromotionChoice, type RunEvalResult } from "../../src/core/practice/gate";
import type { RunExperience } from "../../src/core/practice/plan";
import type { EvaluationOutcome, FrozenTask } from "../../src/core/practice/ports";
import { roundSeed } from "../../src/core/practice/rng";
import { extraRounds, isTerminal } from "../../src/core/practice/run-types";
import { parseStored } from "../../src/core/encoding";
import type { EvalRow, RunStore } from "./store";

const sameLibrary = (a: readonly RunExperience[], b: readonly RunExperience[]) =>
  a.length === b.length && a.every((e, i) => e.id === b[i]!.id && e.text === b[i]!.text);

/**
 * The run's evaluations: one per evaluated epoch on the epoch split (validation under `best`,
 * else the judging split), the judgment of `best`'s chosen library on the judging split, and the
 * gate's extra paired rounds. Queued here, launched and stopped by the shell, their results
 * recorded once, and the promotion decided from them (src/core/practice/gate.ts). Synchronous,
 * inside the run's transaction.
 */
export class RunEvaluations {
  constructor(
    private readonly store: RunStore,
    private readonly now: () => number,
  ) {}

  /** The split that judges the promotion. */
  private judgeSplit(): Split {
    return this.store.config().evaluate?.split ?? "holdout";
  }

  /** The split each epoch's library is evaluated on: `best` chooses on validation, which its judgment never sees. */
  epochSplit(): Split {
    return this.store.config().promote === "best" ? "validation" : this.judgeSplit();
  }

  /**
   * Records that a library of the run is to be evaluated; the shell launches it. The judging
   * split's first round keeps the id evaluations always had (`ev_<run>e<epoch>`).
   */
  queue(epoch: number, library: readonly RunExperience[], split: Split = this.epochSplit(), round = 0): void {
    const runTag = this.store.mustRun().run_id.replace(/^run_/, "");
    const id = `ev_${runTag}e${epoch}${split === this.judgeSplit() ? "" : "v"}${round ? `r${round}` : ""}`;
    this.store.sql(
      "INSERT INTO run_evals (evaluation_id, epoch, split, round, library, status, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT DO NOTHING",
      id,
      epoch,
      split,
      round,
      JSON.stringify(library),
      this.now(),
    );
    this.store.event("evaluation", { epoch, split, round, status: "pending", librarySize: library.length });
  }

  /** The sampling seed of an evaluation: every library of a round draws the same. */
  seedOf(row: EvalRow): number {
    return roundSeed(this.store.config().seed, row.round);
  }

  /** The frozen tasks an evaluation runs on: the judging split's (stored as holdout) or the validation tasks. */
  tasksOf(row: EvalRow): FrozenTask[] {
    return this.store.frozenTasks(row.split === this.judgeSplit() ? "holdout" : "validation");
  }

  toLaunch(): EvalRow[] {
    return isTerminal(this.store.mustRun().status) ? [] : this.store.evals("pending");
  }

  running(): EvalRow[] {
    return this.store.evals("running");
  }

  launched(evaluationId: string): void {
    this.store.sql("UPDATE run_evals SET status = 'running' WHERE evaluation_id = ? AND status = 'pending'", evaluationId);
  }

  results(): RunEvalResult[] {
    return this.store.evals().map((e) => ({
      epoch: e.epoch,
      split: e.split,
      round: e.round,
      status: e.status,
      accuracy: e.accuracy,
      interval: e.interval_low === null || e.interval_high === null ? null : [e.interval_low, e.interval_high],
      tasks: parseStored<TaskRewards[]>(e.task_rewards),
      tokens: e.tokens,
      costUsd: e.cost_usd,
    }));
  }

  /** The first round of each epoch's evaluation on the epoch split: what `best` stops early on. */
  epochResults(): RunEvalResult[] {
    const split = this.epochSplit();
    return this.results().filter((r) => r.split === split && r.round === 0);
  }

  /**
   * Stores an evaluation's result once. The evaluation is named by its id; a report without one
   * (from before evaluations had several per epoch) names the judging split's first round.
   * False when it was no longer pending or running.
   */
  record(ref: { evaluationId?: string; epoch: number }, out: EvaluationOutcome): boolean {
    const row = this.store
      .evals()
      .find((e) =>
        ref.evaluationId ? e.evaluation_id === ref.evaluationId : e.epoch === ref.epoch && e.round === 0 && e.split === this.judgeSplit(),
      );
    if (!row || (row.status !== "pending" && row.status !== "running")) return false;
    this.store.sql(
      "UPDATE run_evals SET status = ?, accuracy = ?, interval_low = ?, interval_high = ?, task_rewards = ?, tokens = ?, cost_usd = ?, error = ?, ended_at = ? WHERE evaluation_id = ?",
      out.status,
      out.accuracy,
      out.interval?.[0] ?? null,
      out.interval?.[1] ?? null,
      out.tasks ? JSON.stringify(out.tasks) : null,
      out.tokens,
      out.costUsd,
      out.error,
      this.now(),
      row.evaluation_id,
    );
    this.store.event("evaluation", {
      epoch: row.epoch,
      split: row.split,
      round: row.round,
      status: out.status,
      holdoutAccuracy: out.accuracy,
      interval: out.interval,
      error: out.error,
    });
    return true;
  }

  /** A finishing run decides only once every evaluation it started has settled. */
  settled(): boolean {
    return this.store.evals("pending", "running").length === 0;
  }

  /** The library an evaluated epoch had (0: the starting library). */
  private libraryOf(epoch: number): RunExperience[] {
    if (epoch === 0) return this.store.startLibrary();
    const row = this.store.evals().find((e) => e.epoch === epoch && e.round === 0);
    if (!row) throw new Error(`no evaluated library of epoch ${epoch}`);
    return JSON.parse(row.library) as RunExperience[];
  }

  /**
   * The gate's next step for a finishing run (see gateStep): null while it waits for evaluations,
   * including those it has just queued; otherwise the choice and the library it would promote.
   * `roomFor` says whether the run's budget can pay for more evaluations.
   */
  judge(roomFor: (tokens: number, costUsd: number) => boolean): { choice: PromotionChoice; library: RunExperience[] } | null {
    if (!this.settled()) return null;
    const cfg = this.store.config();
    const current = this.store.library();
    const split = this.epochSplit();
    const final = this.store
      .evals()
      .filter((e) => e.split === split && e.round === 0)
      .reverse()
      .find((e) => sameLibrary(JSON.parse(e.library) as RunExperience[], current));
    const step = gateStep(this.results(), {
      mode: cfg.promote ?? "always",
      minGain: cfg.minGain ?? 0,
      seed: cfg.seed,
      judge: this.judgeSplit(),
      select: "validation",
      finalEpoch: final?.epoch ?? null,
      maxRounds: cfg.evaluate ? extraRounds(cfg.evaluate) : 0,
      roomFor,
    });
    if (step.kind === "wait") return null;
    if (step.kind === "evaluate") {
      for (const e of step.evals) this.queue(e.epoch, this.libraryOf(e.epoch), e.split, e.round);
      return null;
    }
    const { choice } = step;
    return { choice, library: choice.promote && choice.epoch !== null ? this.libraryOf(choice.epoch) : current };
  }

  /** Evaluations the ended run must still stop: the shell cancels them and reports back with evaluationStopped. */
  toStop(): EvalRow[] {
    const run = this.store.mustRun();
    return run.status === "cancelled" || run.status === "failed" ? this.store.evals("pending", "running") : [];
  }

  stopped(evaluationId: string): void {
    this.store.sql(
      "UPDATE run_evals SET status = 'cancelled', error = ?, ended_at = ? WHERE evaluation_id = ? AND status IN ('pending', 'running')",
      `the run ${this.store.mustRun().status === "failed" ? "failed" : "was cancelled"}`,
      this.now(),
      evaluationId,
    );
  }
}
