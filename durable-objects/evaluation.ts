import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import type { EvaluationPorts, FrozenTask } from "../src/core/practice/ports";
import type { UnitData, UnitResult } from "../src/core/practice/units";
import { migrateSchema } from "./schema-version";
import { EVALUATION_SCHEMA } from "./evaluation/schema";
import { EvaluationMachine, type EvaluationInit } from "./evaluation/machine";
import { createLogger } from "../src/core/logger";
import { SerialPasses, sendUnits } from "./unit-effects";
import { newHolder } from "./unit-ledger";

export type { EvaluationInit };

/**
 * One instance per evaluation (named by its id). The machine (./evaluation/machine.ts) decides;
 * this shell performs the effects: enqueueing units and arming the alarm itself, and through its
 * ports (src/core/practice/ports.ts, given by the Worker's entry) mirroring the status and the
 * result into D1 and reporting a settled result to its practice run.
 */
export class Evaluation extends DurableObject<Env> {
  private initError: unknown = null;
  private machine!: EvaluationMachine;
  private readonly effects = new SerialPasses(() => this.flushOnce());

  constructor(
    ctx: DurableObjectState,
    env: Env,
    private readonly ports: EvaluationPorts,
  ) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      try {
        migrateSchema(ctx.storage, EVALUATION_SCHEMA);
        this.machine = new EvaluationMachine(ctx.storage.sql, () => Date.now());
      } catch (err) {
        // Kept and re-thrown per call so a failed init does not leave the input gate broken.
        this.initError = err;
      }
    });
  }

  private tx<T>(fn: () => T): T {
    if (this.initError) throw this.initError;
    return this.ctx.storage.transactionSync(fn);
  }

  /** Creates the evaluation once; a retried create changes nothing. */
  async init(input: EvaluationInit, tasks: FrozenTask[]) {
    this.tx(() => {
      if (this.machine.row()) return;
      this.machine.init(input);
      this.machine.insertTasks(tasks);
    });
  }

  async addTasks(tasks: FrozenTask[]) {
    return this.tx(() => (this.machine.row()?.status === "queued" ? this.machine.insertTasks(tasks) : 0));
  }

  async start() {
    if (this.tx(() => this.machine.start())) await this.effects.request();
    return this.tx(() => this.machine.view());
  }

  async claim(key: string) {
    const holder = await newHolder();
    return this.tx(() => this.machine.claim(key, holder));
  }

  async release(key: string, lease: number) {
    this.tx(() => this.machine.release(key, lease));
  }

  async heartbeat(key: string, lease: number) {
    return this.tx(() => this.machine.heartbeat(key, lease));
  }

  async report(key: string, result: UnitResult) {
    const changed = this.tx(() => this.machine.report(key, result));
    if (changed) await this.effects.request();
    return changed;
  }

  async rolloutResult(key: string, dispatchId: string, secretHash: string | null, data: UnitData["rollout"]) {
    const outcome = this.tx(() => this.machine.rolloutResult(key, dispatchId, secretHash, data));
    if (outcome === "accepted") await this.effects.request();
    return outcome;
  }

  /**
   * Stops the evaluation. Its effects (the D1 mirror, the report to its run) follow from the alarm,
   * not inside this call: the run that cancels is waiting on it.
   */
  async cancel(reason: string) {
    if (this.tx(() => this.machine.cancel(reason))) await this.ctx.storage.setAlarm(Date.now());
  }

  async view() {
    return this.tx(() => (this.machine.row() ? this.machine.view() : null));
  }

  override async alarm() {
    this.tx(() => this.machine.sweepOverdue());
    await this.effects.request();
  }

  private async flushOnce(): Promise<void> {
    const evaluationId = this.machine.row()!.evaluation_id;
    const keys = this.tx(() => this.machine.takeDispatch());
    // Units that could not be sent go back to pending; the alarm armed below comes back soon for them.
    await sendUnits(this.env.PRACTICE, keys, (key) => ({ type: "evaluation.unit" as const, evaluationId, key }), (unsent) => this.tx(() => this.machine.unsend(unsent)));
    try {
      const row = this.machine.row()!;
      if (row.synced_status !== row.status) {
        const view = this.tx(() => this.machine.view());
        await this.ports.syncRow(view);
        await this.ports.reportToRun(view);
        this.tx(() => this.machine.markSynced(view.status));
      }
    } catch (err) {
      // The D1 mirror is retried by the alarm armed below; the evaluation's own state is safe.
      createLogger({ evaluationId }, this.env.LOG_LEVEL).error("evaluation effects failed", { err: String(err) });
    } finally {
      const next = this.tx(() => this.machine.nextAlarm());
      if (next === null) await this.ctx.storage.deleteAlarm();
      else await this.ctx.storage.setAlarm(next);
    }
  }
}
