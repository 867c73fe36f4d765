import { shouldStopEarly, type PromotionChoice } from "../../src/core/practice/gate";
import type { RunExperience } from "../../src/core/practice/plan";
import { stepsPerEpoch } from "../../src/core/practice/rng";
import { isTerminal, type RunConfig, type UsageTotals } from "../../src/core/practice/run-types";
import { parseUnitKey } from "../../src/core/practice/unit-key";
import {
  sameRolloutResult,
  type Claim,
  type RolloutOutcome,
  type UnitData,
  type UnitInput,
  type UnitResult,
} from "../../src/core/practice/units";
import { awaitingMs, unitWorkMs } from "../../src/core/practice/unit-timing";
import type { Holder, UnitLedger } from "../unit-ledger";
import type { RunStore } from "./store";
import type { EvaluationOutcome } from "../../src/core/practice/ports";
import { RunEvaluations } from "./evaluations";
import { unitInput } from "./unit-inputs";
import { RunBudget, type CallAsk, type CallTokens } from "./budget";
import { LearnerPhase } from "./learner-phase";
import { StepPhase } from "./step-phase";

/** How soon the alarm comes back for work that waits to be sent, evaluated, promoted or mirrored. */
const RETRY_MS = 30_000;

export interface InitInput {
  runId: string;
  tenantId: string;
  agentId: string;
  datasetId: string;
  config: RunConfig;
  library: { id: string; text: string; q?: number }[];
  /** The agent's subscribed libraries' lessons, shown in rollouts beside the run's library and never changed by it. */
  shared?: { id: string; text: string }[];
  /** The agent's starting Q: the utility the library cap assumes for lessons the run writes. */
  priorQ?: number;
  /** The agent's incarnation (see durable-objects/agent-memory/object/lifecycle.ts) the run works for. */
  agentIncarnation?: string;
}

/**
 * The Training-Free GRPO state machine of one run: its lifecycle (creating → queued → running →
 * finishing → promoted or ended) and the traffic of its units. The phases of a step live beside
 * it: rollouts and scoring in ./step-phase.ts, the library update in ./learner-phase.ts, the budget
 * guard both use in ./budget.ts. Every transition is synchronous and runs inside the DO's
 * transaction; the DO shell performs the effects (sending units, the alarm, its ports) afterwards.
 * Transitions are keyed by unit and guarded by what is stored, so replaying a result, a
 * redelivered message or a resent unit never changes the outcome.
 */
export class RunMachine {
  constructor(
    private readonly store: RunStore,
    private readonly ledger: UnitLedger,
    private readonly now: () => number,
  ) {
    this.evals = new RunEvaluations(store, now);
    this.budget = new RunBudget(store, ledger, now);
    const learner = new LearnerPhase(this.budget, this.evals, (epoch, step) => this.steps.startStep(epoch, step));
    this.steps = new StepPhase(this.budget, learner);
  }

  /** The run's held-out evaluations (the shell launches and stops them). */
  readonly evals: RunEvaluations;
  private readonly budget: RunBudget;
  private readonly steps: StepPhase;

  private active(): boolean {
    return this.budget.active();
  }

  /** Stores an evaluation's result once; under `best`, stops the run after `patience` epochs without gain on validation. */
  evaluationDone(ref: { evaluationId?: string; epoch: number }, out: EvaluationOutcome): boolean {
    if (!this.evals.record(ref, out)) return false;
    const cfg = this.store.config();
    if (cfg.promote === "best" && this.active() && shouldStopEarly(this.evals.epochResults(), cfg.patience)) {
      const run = this.store.mustRun();
      const reason = `no ${this.evals.epochSplit()} improvement for ${cfg.patience} epoch(s)`;
      this.budget.abandonStep(run.epoch, run.step);
      this.store.updateRun({ finishing: "completed", stopped_early: reason });
      this.store.event("early-stop", { epoch: run.epoch, step: run.step, reason });
    }
    return true;
  }

  init(input: InitInput): void {
    const library: RunExperience[] = input.library.map((e) => ({
      id: e.id,
      text: e.text,
      lineage: [{ op: "start" }],
      ...(e.q === undefined ? {} : { q: e.q }),
    }));
    const t = this.now();
    this.store.sqlInsertRun({
      run_id: input.runId,
      tenant_id: input.tenantId,
      agent_id: input.agentId,
      dataset_id: input.datasetId,
      config: JSON.stringify(input.config),
      status: "creating",
      library: JSON.stringify(library),
      start_library: JSON.stringify(library),
      shared: JSON.stringify((input.shared ?? []).map(({ id, text }) => ({ id, text }))),
      prior_q: input.priorQ ?? 0.5,
      agent_incarnation: input.agentIncarnation ?? null,
      created_at: t,
      updated_at: t,
    });
    this.store.event("status", { status: "creating" });
  }

  /** Every task is stored: the run's task sets are frozen and it may be admitted. False when it was already sealed. */
  seal(): boolean {
    const run = this.store.mustRun();
    if (run.status !== "creating") return false;
    this.store.updateRun({ status: "queued", steps_per_epoch: stepsPerEpoch(this.store.taskCount(), this.store.config().batchSize) });
    this.store.event("status", { status: "queued" });
    return true;
  }

  start(): boolean {
    const run = this.store.mustRun();
    if (run.status !== "queued") return false;
    // Runs sealed before steps_per_epoch was frozen at sealing have none yet.
    const perEpoch = run.steps_per_epoch || stepsPerEpoch(this.store.taskCount(), this.store.config().batchSize);
    this.store.updateRun({ status: "running", started_at: this.now(), steps_per_epoch: perEpoch });
    this.store.event("status", { status: "running" });
    const cfg = this.store.config();
    if (cfg.evaluate) {
      this.evals.queue(0, this.store.startLibrary());
      // `best` judges its choice against the starting library on held-out tasks: that evaluation need not wait.
      if (cfg.promote === "best") this.evals.queue(0, this.store.startLibrary(), cfg.evaluate.split);
    }
    this.steps.startStep(0, 0);
    return true;
  }

  /**
   * Cancels the run and everything it has in flight (units here, evaluations by the shell). A
   * run whose promotion has begun cannot be cancelled: it ends promoted, never half.
   */
  cancel(): "cancelled" | "ended" | "promoting" {
    const run = this.store.mustRun();
    if (isTerminal(run.status)) return "ended";
    if (run.promoting) return "promoting";
    this.stop("cancelled", null);
    return "cancelled";
  }

  fail(error: string): void {
    const run = this.store.mustRun();
    if (isTerminal(run.status) || run.promoting) return;
    this.stop("failed", error);
  }

  private stop(status: "cancelled" | "failed", error: string | null): void {
    const run = this.store.mustRun();
    this.budget.abandonStep(run.epoch, run.step);
    this.ledger.closeAll(`${status} with the run`);
    this.store.updateRun({ status, ...(error === null ? {} : { error }), ended_at: this.now(), finishing: null });
    this.store.event("end", error === null ? { status } : { status, error });
  }

  /**
   * Once the gate has decided (it may first ask for more evaluations, which the shell launches),
   * the promotion is about to write to the agent's library: from here on the run cannot be
   * cancelled. Null while the gate waits, or when the run ended (was cancelled) first.
   */
  beginPromotion(): { choice: PromotionChoice; library: RunExperience[] } | null {
    const run = this.store.mustRun();
    if (isTerminal(run.status) || !run.finishing) return null;
    const plan = this.evals.judge((tokens, costUsd) => this.budget.roomFor(tokens, costUsd));
    if (plan && !run.promoting) this.store.updateRun({ promoting: 1 });
    return plan;
  }

  /**
   * Hands out a dispatched unit's input under a lease (see the unit ledger), so a duplicate
   * delivery running alongside makes no second call.
   */
  claim(key: string, holder: Holder): Claim {
    const run = this.store.run();
    const unit = this.store.unit(key);
    if (!run || !parseUnitKey(key) || !unit) return { status: "void" };
    if (unit.status === "done" || unit.status === "awaiting") return { status: "done" };
    if (!this.active() || run.epoch !== unit.epoch || run.step !== unit.step) return { status: "void" };
    const c = this.ledger.claim(key, unitWorkMs(unit.stage, this.store.config().policy));
    if (c.status !== "run") return c;
    return { status: "run", lease: c.lease, input: this.held(key, holder, run.run_id) };
  }

  /** A claimed unit's input; a webhook rollout gets a fresh holder whose secret goes with the dispatch. */
  private held(key: string, holder: Holder, runId: string): UnitInput {
    const unit = this.store.unit(key)!;
    if (unit.stage !== "rollout" || this.store.config().policy.kind !== "webhook") return unitInput(this.store, unit, runId);
    this.ledger.bindHolder(key, holder);
    return { ...unitInput(this.store, this.store.unit(key)!, runId), resultSecret: holder.secret } as UnitInput;
  }

  /**
   * Reserves the next LLM call of a unit held under `lease` against the run's budget (see
   * RunBudget.reserve); a holder that lost its lease makes no call.
   */
  reserveCall(key: string, lease: number, callId: string, ask: CallAsk): ReturnType<RunBudget["reserve"]> {
    if (!this.ledger.heartbeat(key, lease)) return "inactive";
    return this.budget.reserve(key, callId, ask);
  }

  settleCall(callId: string, used: CallTokens & { failed: boolean }): void {
    this.budget.settle(callId, used);
  }

  /** A failed attempt gives the lease back so that the queue's retry can claim the unit at once. */
  release(key: string, lease: number): void {
    this.ledger.release(key, lease);
  }

  heartbeat(key: string, lease: number): boolean {
    return this.ledger.heartbeat(key, lease);
  }

  /** Stores a unit's result once and moves the run forward. Returns false when nothing changed. */
  report(key: string, result: UnitResult): boolean {
    const unit = this.store.unit(key);
    const run = this.store.run();
    if (!unit || !run) return false;
    if (unit.status === "done" || isTerminal(run.status) || run.epoch !== unit.epoch || run.step !== unit.step) {
      // Too late to be used (the run stopped and closed its units, or moved past the unit's step),
      // but the calls it made were made: the run's usage counts them, as the tenant's ledger does.
      // A repeated report finds its reservations already taken.
      this.store.addUsage(this.budget.takeReserved(key), unit);
      return false;
    }
    // The calls the unit reserved are every attempt it made; the result carries only the last one's.
    this.store.addUsage(this.budget.takeReserved(key) ?? result.usage, unit);
    if (result.awaiting && unit.stage === "rollout" && !result.error) {
      this.ledger.toAwaiting(key, awaitingMs(this.store.config().policy));
      return true;
    }
    this.ledger.finish(key, JSON.stringify(result), result.error ?? null);
    if (result.fatal) {
      this.fail(result.error ?? "a unit failed fatally");
      return true;
    }
    if (result.budgetExceeded) {
      this.budget.stopForBudget(result.error ?? "the tenant's daily token budget is spent");
      return true;
    }
    if (this.budget.mayProceed()) this.steps.advance(unit, result);
    return true;
  }

  /** Ends a run whose last step (or budget stop) is done, once its promotion has been recorded. */
  complete(promotion: unknown): void {
    const run = this.store.mustRun();
    if (!run.finishing || isTerminal(run.status)) return;
    this.store.updateRun({ status: run.finishing, promotion: JSON.stringify(promotion), finishing: null, ended_at: this.now() });
    this.store.event("end", { status: run.finishing, promotion });
  }

  /** Marks pending units as sent, within the run's concurrency, and returns their keys for the shell to enqueue. */
  takeDispatch(): string[] {
    return this.active() ? this.ledger.dispatch(this.store.config().concurrency) : [];
  }

  /**
   * Hands the next pending unit straight to a consumer that just finished one, when the run has
   * room: consumers keep their slot busy instead of waiting for the queue's next batch, and the
   * run's concurrency holds (awaiting units keep their slots).
   */
  takeNext(holder: Holder): { key: string; lease: number; input: UnitInput } | null {
    if (!this.active()) return null;
    const run = this.store.mustRun();
    const policy = this.store.config().policy;
    const next = this.ledger.takeNext(this.store.config().concurrency, (u) => unitWorkMs(this.store.unit(u.key)!.stage, policy));
    if (!next) return null;
    return { ...next, input: this.held(next.key, holder, run.run_id) };
  }

  /**
   * A handed-over unit that failed and may succeed later goes back to pending; after MAX_LAPSES
   * tries it is recorded as failed, so a unit that keeps failing cannot circulate for ever.
   */
  requeue(key: string, lease: number, error: string): void {
    const tries = this.ledger.requeue(key, lease);
    if (tries !== null && this.store.unit(key)?.status === "running")
      this.ledger.settle(key, { error: `failed after ${tries} tries: ${error}` }, this.reportOwn);
  }

  /** Units whose send failed go back to pending; the alarm tries again soon. */
  unsend(keys: readonly string[]): void {
    this.ledger.unsend(keys);
  }

  /** The alarm's work while the run is active: overdue units go back to the queue or are settled (UnitLedger.sweepOverdue). */
  sweepOverdue(): void {
    if (this.active()) this.ledger.sweepOverdue(this.reportOwn);
  }

  private readonly reportOwn = (key: string, result: UnitResult) => this.report(key, result);

  /** When the alarm should next fire: the earliest deadline in flight, or soon when work waits to be sent. */
  nextAlarm(): number | null {
    if (!this.active()) {
      const run = this.store.mustRun();
      return run.finishing || run.synced_status !== run.status || this.evals.toStop().length ? this.now() + RETRY_MS : null;
    }
    // The alarm also looks in on evaluations, in case a settled one's report back was lost.
    const evaluating = this.store.evals("pending", "running").length > 0;
    const next = this.ledger.nextWake();
    if (this.ledger.pending() > 0 || evaluating) return Math.min(next ?? Infinity, this.now() + RETRY_MS);
    return next;
  }

  /**
   * The result of a webhook rollout that answered 202, posted later by its holder: recorded once,
   * the same result again is a duplicate, a different one a conflict (see RolloutOutcome).
   */
  rolloutResult(key: string, dispatchId: string, secretHash: string | null, data: UnitData["rollout"]): RolloutOutcome {
    const unit = this.store.unit(key);
    if (!unit || unit.stage !== "rollout") return "unknown";
    const check = this.ledger.checkHolder(key, dispatchId, secretHash);
    if (check !== "ok") return check;
    if (unit.status === "done") return sameRolloutResult(unit.result, data) ? "duplicate" : "conflict";
    return this.report(key, { data }) ? "accepted" : "finished";
  }

  usage(): UsageTotals {
    const r = this.store.mustRun();
    return { calls: r.calls, tokensIn: r.tokens_in, tokensOut: r.tokens_out, costUsd: r.cost_usd };
  }
}
