import type { Env } from "../src/env";
import type { EvaluationOutcome, FrozenTask, PracticeRunPorts } from "../src/core/practice/ports";
import type { RunExperience } from "../src/core/practice/plan";
import { isTerminal, type Promotion } from "../src/core/practice/run-types";
import type { UnitResult } from "../src/core/practice/units";
import { migrateSchema } from "./schema-version";
import { PRACTICE_RUN_SCHEMA } from "./practice-run/schema";
import { RunStore, type TaskSplit } from "./practice-run/store";
import { RunMachine, type InitInput } from "./practice-run/machine";
import type { CallAsk, CallTokens } from "./practice-run/budget";
import { newHolder, UnitLedger } from "./unit-ledger";
import { RunViews } from "./practice-run/views";
import { UnitShell } from "./unit-shell";

export type { InitInput, TaskSplit };

/**
 * One instance per Training-Free GRPO practice run (named by its run id). The state machine
 * (./practice-run/machine.ts) decides; this shell (with the unit traffic and effects pass of
 * ./unit-shell.ts) enqueues units and arms the alarm itself, and through its ports
 * (src/core/practice/ports.ts, given by the Worker's entry) launches and stops evaluations,
 * promotes the result, mirrors the status into D1 and admits the tenant's queued runs. What a port
 * call achieved is recorded here only once it returned, so the alarm repeats a call cut short.
 */
export class PracticeRun extends UnitShell<RunMachine> {
  private store!: RunStore;
  private views!: RunViews;

  constructor(
    ctx: DurableObjectState,
    env: Env,
    private readonly ports: PracticeRunPorts,
  ) {
    super(ctx, env);
    this.boot(() => {
      migrateSchema(ctx.storage, PRACTICE_RUN_SCHEMA);
      const now = () => Date.now();
      this.store = new RunStore(ctx.storage.sql, now);
      this.views = new RunViews(this.store);
      return new RunMachine(this.store, new UnitLedger(ctx.storage.sql, now), now);
    });
  }

  /** Creates the run once, as `creating`; calling it again (a retried create) changes nothing. */
  async init(input: InitInput) {
    this.tx(() => {
      if (!this.store.run()) this.machine.init(input);
    });
  }

  /** Adds tasks of one split while the run is being created (a retried chunk adds nothing twice). */
  async addTasks({ tasks, split = "train" }: { tasks: FrozenTask[]; split?: TaskSplit | undefined }) {
    return this.tx(() => (this.store.mustRun().status === "creating" ? this.store.insertTasks(tasks, split) : 0));
  }

  /** Setup is done: the task sets are frozen and the run waits as `queued` for admission. */
  async seal() {
    this.tx(() => this.machine.seal());
    return this.views.view();
  }

  /** Starts a queued run; null when the run was never set up. */
  async start() {
    const started = this.tx(() => (this.store.run() ? this.machine.start() : null));
    if (started === null) return null;
    if (started) await this.effects.request();
    return this.views.view();
  }

  /** Cancels the run, its units and (in the effects pass) its evaluations; refused once its promotion has begun. */
  async cancel() {
    const outcome = this.tx(() => this.machine.cancel());
    if (outcome === "cancelled") await this.effects.request();
    return { outcome, view: this.views.view() };
  }

  /**
   * Stores a unit's result and, when that freed a slot, hands the consumer the next pending unit
   * to run at once. A duplicate report frees nothing and takes nothing.
   */
  async reportAndNext({ key, result }: { key: string; result: UnitResult }) {
    const holder = await newHolder();
    const { changed, next } = this.tx(() => {
      const changed = this.machine.report(key, result);
      return { changed, next: changed ? this.machine.takeNext(holder) : null };
    });
    if (changed) await this.effects.request();
    return next;
  }

  /** A unit's LLM call asks for room in the run's budget before it goes out; a refusal may stop the run. */
  async reserveCall({ key, lease, callId, ask }: { key: string; lease: number; callId: string; ask: CallAsk }) {
    const outcome = this.tx(() => this.machine.reserveCall(key, lease, callId, ask));
    if (outcome === "spent") await this.effects.request();
    return outcome;
  }

  /** What a reserved call used (its error, or its answer's count) replaces its reservation. */
  async settleCall({ callId, used }: { callId: string; used: CallTokens & { failed: boolean } }) {
    this.tx(() => this.machine.settleCall(callId, used));
  }

  async requeue({ key, lease, error }: { key: string; lease: number; error: string }) {
    this.tx(() => this.machine.requeue(key, lease, error));
    await this.effects.request();
  }

  async view() {
    this.ready();
    return this.store.run() ? this.views.view() : null;
  }

  async steps() {
    this.ready();
    return this.views.steps();
  }

  async stepDetail({ n }: { n: number }) {
    this.ready();
    return this.views.stepDetail(n);
  }

  async rollouts(filter: { epoch?: number; step?: number; taskId?: string; limit: number; after?: number }) {
    this.ready();
    return this.views.rollouts(filter);
  }

  async library() {
    this.ready();
    return this.views.library();
  }

  async curve() {
    this.ready();
    return this.views.curve();
  }

  /** An evaluation of one of the run's libraries reports back (more than once is harmless). */
  async evaluationDone({ evaluationId, epoch, outcome }: { evaluationId?: string; epoch: number; outcome: EvaluationOutcome }) {
    const changed = this.tx(() => this.machine.evaluationDone({ evaluationId, epoch }, outcome));
    if (changed) await this.effects.request();
    return changed;
  }

  async events({ after, limit }: { after: number; limit: number }) {
    this.ready();
    const run = this.store.run();
    return { events: this.store.events(after, limit), terminal: run ? isTerminal(run.status) : true };
  }

  override async alarm() {
    // An evaluation reports back when it settles; looking in here covers a report that was lost.
    for (const e of this.tx(() => this.machine.evals.running())) {
      const outcome = await this.ports.evaluationOutcome(e.evaluation_id).catch(() => null);
      if (outcome) this.tx(() => this.machine.evaluationDone({ evaluationId: e.evaluation_id, epoch: e.epoch }, outcome));
    }
    await super.alarm();
  }

  protected unitMessage(key: string) {
    return { type: "practice.unit" as const, runId: this.store.mustRun().run_id, key };
  }

  protected logContext() {
    return { runId: this.store.mustRun().run_id };
  }

  protected async followUp(): Promise<void> {
    const runId = this.store.mustRun().run_id;
    for (const e of this.tx(() => this.machine.evals.toStop())) {
      await this.ports.cancelEvaluation(e.evaluation_id, `its practice run ${runId} ended as ${this.store.mustRun().status}`);
      this.tx(() => this.machine.evals.stopped(e.evaluation_id));
    }
    // The gate decides, or asks for the evaluations it still needs (launched just below).
    // Marked before the library write may begin, so a cancel meanwhile is refused, never half-applied.
    const plan = this.store.mustRun().finishing && this.tx(() => this.machine.beginPromotion());
    for (const e of this.tx(() => this.machine.evals.toLaunch())) {
      // Evaluated as in practice: the subscribed libraries' lessons beside the library evaluated.
      const shared = (JSON.parse(this.store.mustRun().shared) as { id: string; text: string }[]).map(
        (l): RunExperience => ({ ...l, lineage: [{ op: "start" }] }),
      );
      const request = {
        evaluationId: e.evaluation_id,
        epoch: e.epoch,
        split: e.split,
        seed: this.machine.evals.seedOf(e),
        library: [...(JSON.parse(e.library) as RunExperience[]), ...shared],
      };
      const failure = await this.ports.launchEvaluation(this.store.facts(), request, this.machine.evals.tasksOf(e));
      const ref = { evaluationId: e.evaluation_id, epoch: e.epoch };
      this.tx(() => (failure ? this.machine.evaluationDone(ref, failure) : this.machine.evals.launched(e.evaluation_id)));
    }
    if (plan) {
      const { choice, library } = plan;
      const promotion: Promotion = choice.promote
        ? {
            ...(await this.ports.promote(this.store.facts(), this.store.startLibrary(), library, choice.reason)),
            epoch: choice.epoch,
            decision: choice.decision,
          }
        : { promoted: false, reason: choice.reason, epoch: null, decision: choice.decision, version: null, applied: 0, skipped: [] };
      this.tx(() => this.machine.complete(promotion));
    }
    const after = this.store.mustRun();
    if (after.synced_status !== after.status) {
      const summary = { librarySize: this.store.library().length, usage: this.machine.usage(), promotion: this.store.promotion() };
      await this.ports.syncRow(after.run_id, { status: after.status, summary, error: after.error });
      this.tx(() => this.store.updateRun({ synced_status: after.status }));
      if (isTerminal(after.status)) await this.ports.admitQueued(after.tenant_id);
    }
  }
}
