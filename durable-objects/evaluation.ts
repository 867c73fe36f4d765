import type { Env } from "../src/env";
import type { EvaluationPorts, FrozenTask } from "../src/core/practice/ports";
import { migrateSchema } from "./schema-version";
import { EVALUATION_SCHEMA } from "./evaluation/schema";
import { EvaluationMachine, type EvaluationInit } from "./evaluation/machine";
import { UnitShell } from "./unit-shell";

export type { EvaluationInit };

/**
 * One instance per evaluation (named by its id). The machine (./evaluation/machine.ts) decides;
 * this shell (with the unit traffic and effects pass of ./unit-shell.ts) enqueues units and arms
 * the alarm itself, and through its ports (src/core/practice/ports.ts, given by the Worker's
 * entry) mirrors the status and the result into D1 and reports a settled result to its practice run.
 */
export class Evaluation extends UnitShell<EvaluationMachine> {
  constructor(
    ctx: DurableObjectState,
    env: Env,
    private readonly ports: EvaluationPorts,
  ) {
    super(ctx, env);
    this.boot(() => {
      migrateSchema(ctx.storage, EVALUATION_SCHEMA);
      return new EvaluationMachine(ctx.storage.sql, () => Date.now());
    });
  }

  /** Creates the evaluation once; a retried create changes nothing. */
  async init({ input, tasks }: { input: EvaluationInit; tasks: FrozenTask[] }) {
    this.tx(() => {
      if (this.machine.row()) return;
      this.machine.init(input);
      this.machine.insertTasks(tasks);
    });
  }

  /** Adds tasks while the evaluation is queued (a retried chunk adds nothing twice). */
  async addTasks({ tasks }: { tasks: FrozenTask[] }) {
    return this.tx(() => (this.machine.row()?.status === "queued" ? this.machine.insertTasks(tasks) : 0));
  }

  async start() {
    if (this.tx(() => this.machine.start())) await this.effects.request();
    return this.tx(() => this.machine.view());
  }

  /**
   * Stops the evaluation. Its effects (the D1 mirror, the report to its run) follow from the alarm,
   * not inside this call: the run that cancels is waiting on it.
   */
  async cancel({ reason }: { reason: string }) {
    if (this.tx(() => this.machine.cancel(reason))) await this.ctx.storage.setAlarm(Date.now());
  }

  async view() {
    return this.tx(() => (this.machine.row() ? this.machine.view() : null));
  }

  protected unitMessage(key: string) {
    return { type: "evaluation.unit" as const, evaluationId: this.machine.row()!.evaluation_id, key };
  }

  protected logContext() {
    return { evaluationId: this.machine.row()!.evaluation_id };
  }

  protected async followUp(): Promise<void> {
    const row = this.machine.row()!;
    if (row.synced_status === row.status) return;
    const view = this.tx(() => this.machine.view());
    await this.ports.syncRow(view);
    await this.ports.reportToRun(view);
    this.tx(() => this.machine.markSynced(view.status));
  }
}
