import type { RunExperience } from "../../src/core/practice/plan";
import type { FrozenTask, RunFacts } from "../../src/core/practice/ports";
import type { Promotion, RunConfig, RunStatus, UsageTotals } from "../../src/core/practice/run-types";
import type { UnitStage } from "../../src/core/practice/unit-key";
import type { Split } from "../../src/core/practice/dataset-types";
import type { EvalStatus } from "../../src/core/practice/gate";
import type { LedgerUnit } from "../unit-ledger";

export interface RunRow extends Record<string, SqlStorageValue> {
  run_id: string;
  tenant_id: string;
  agent_id: string;
  dataset_id: string;
  config: string;
  status: RunStatus;
  epoch: number;
  step: number;
  steps_per_epoch: number;
  library: string;
  start_library: string;
  /** JSON `{ id, text }[]`: the subscribed libraries' lessons the run's rollouts see beside its own (ids are sharedRefs). */
  shared: string;
  error: string | null;
  promotion: string | null;
  finishing: "completed" | "budget-exhausted" | null;
  stopped_early: string | null;
  prior_q: number;
  /** The agent's incarnation when the run was set up; null for runs from before incarnations. */
  agent_incarnation: string | null;
  /** 1 from the moment the promotion's library write may have begun until the run ends: cancel is refused meanwhile. */
  promoting: number;
  synced_status: string | null;
  calls: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  ended_at: number | null;
}

/**
 * Which of the run's frozen task sets: the train tasks it practises on, the validation tasks
 * `best` chooses its epoch on, or the tasks of the judging split (evaluate.split, the held-out
 * split unless the run said otherwise), stored as `holdout`.
 */
export type TaskSplit = "train" | "validation" | "holdout";

const TASK_TABLES: Record<TaskSplit, string> = { train: "tasks", validation: "validation_tasks", holdout: "holdout_tasks" };

export interface TaskRow extends Record<string, SqlStorageValue> {
  idx: number;
  task_id: string;
  task: string;
  ground_truth: string | null;
}

export interface UnitRow extends LedgerUnit, Record<string, SqlStorageValue> {
  epoch: number;
  step: number;
  task: number | null;
  rollout: number | null;
  stage: UnitStage;
  reward: number | null;
  verdict: string | null;
  done_at: number | null;
}

export interface StepRow extends Record<string, SqlStorageValue> {
  epoch: number;
  step: number;
  tasks: string;
  snapshot: string;
  status: "running" | "done" | "abandoned";
  record: string | null;
  mean_reward: number | null;
  library_size: number | null;
  calls: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  started_at: number;
  ended_at: number | null;
}

export interface EvalRow extends Record<string, SqlStorageValue> {
  evaluation_id: string;
  epoch: number;
  split: Split;
  round: number;
  library: string;
  status: EvalStatus;
  accuracy: number | null;
  interval_low: number | null;
  interval_high: number | null;
  /** JSON TaskRewards[]: each task's rewards per sample, once completed. */
  task_rewards: string | null;
  tokens: number;
  cost_usd: number;
  error: string | null;
  created_at: number;
  ended_at: number | null;
}

export interface GroupRow extends Record<string, SqlStorageValue> {
  epoch: number;
  step: number;
  task: number;
  kept: number;
  mean_reward: number;
  rewards: string;
  reason: string;
}

/** Typed access to the run's SQLite tables. Every write happens inside the caller's transaction. */
export class RunStore {
  constructor(
    private readonly sql_: SqlStorage,
    private readonly now: () => number,
  ) {}

  sql(query: string, ...params: SqlStorageValue[]): void {
    this.sql_.exec(query, ...params);
  }

  sqlAll<T extends Record<string, SqlStorageValue>>(query: string, ...params: SqlStorageValue[]): T[] {
    return this.sql_.exec<T>(query, ...params).toArray();
  }

  sqlOne<T extends Record<string, SqlStorageValue>>(query: string, ...params: SqlStorageValue[]): T {
    return this.sql_.exec<T>(query, ...params).one();
  }

  sqlInsertRun(
    row: Pick<
      RunRow,
      | "run_id"
      | "tenant_id"
      | "agent_id"
      | "dataset_id"
      | "config"
      | "status"
      | "library"
      | "start_library"
      | "shared"
      | "prior_q"
      | "agent_incarnation"
      | "created_at"
      | "updated_at"
    >,
  ): void {
    const keys = Object.keys(row) as (keyof typeof row)[];
    this.sql_.exec(`INSERT INTO run (id, ${keys.join(", ")}) VALUES (1, ${keys.map(() => "?").join(", ")})`, ...keys.map((k) => row[k]));
  }

  run(): RunRow | null {
    return this.sql_.exec<RunRow>("SELECT * FROM run WHERE id = 1").toArray()[0] ?? null;
  }

  mustRun(): RunRow {
    const r = this.run();
    if (!r) throw new Error("practice run not initialised");
    return r;
  }

  /** What the run's follow-up work (evaluations, promotion) needs to know about it. */
  facts(): RunFacts {
    const run = this.mustRun();
    return {
      runId: run.run_id,
      tenantId: run.tenant_id,
      agentId: run.agent_id,
      datasetId: run.dataset_id,
      config: this.config(),
      finishing: run.finishing,
      stoppedEarly: run.stopped_early,
      agentIncarnation: run.agent_incarnation ?? null,
    };
  }

  config(): RunConfig {
    return JSON.parse(this.mustRun().config) as RunConfig;
  }

  library(): RunExperience[] {
    return JSON.parse(this.mustRun().library) as RunExperience[];
  }

  startLibrary(): RunExperience[] {
    return JSON.parse(this.mustRun().start_library) as RunExperience[];
  }

  updateRun(fields: Partial<Omit<RunRow, "run_id">>): void {
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    if (!keys.length) return;
    const sets = keys.map((k) => `${k} = ?`).join(", ");
    this.sql_.exec(`UPDATE run SET ${sets}, updated_at = ? WHERE id = 1`, ...keys.map((k) => fields[k] as SqlStorageValue), this.now());
  }

  addUsage(usage: UsageTotals | undefined, at: { epoch: number; step: number }): void {
    if (!usage) return;
    this.sql_.exec(
      "UPDATE run SET calls = calls + ?, tokens_in = tokens_in + ?, tokens_out = tokens_out + ?, cost_usd = cost_usd + ? WHERE id = 1",
      usage.calls,
      usage.tokensIn,
      usage.tokensOut,
      usage.costUsd,
    );
    this.sql_.exec(
      "UPDATE steps SET calls = calls + ?, tokens_in = tokens_in + ?, tokens_out = tokens_out + ?, cost_usd = cost_usd + ? WHERE epoch = ? AND step = ?",
      usage.calls,
      usage.tokensIn,
      usage.tokensOut,
      usage.costUsd,
      at.epoch,
      at.step,
    );
  }

  taskCount(): number {
    return this.sql_.exec<{ n: number }>("SELECT COUNT(*) AS n FROM tasks").one().n;
  }

  task(idx: number): TaskRow {
    const t = this.sql_.exec<TaskRow>("SELECT * FROM tasks WHERE idx = ?", idx).toArray()[0];
    if (!t) throw new Error(`task ${idx} missing`);
    return t;
  }

  /** The tasks of one of the run's evaluation sets (validation or the judging split), frozen when the run was created. */
  frozenTasks(split: Exclude<TaskSplit, "train">): FrozenTask[] {
    return this.sql_
      .exec<TaskRow>(`SELECT * FROM ${TASK_TABLES[split]} ORDER BY idx`)
      .toArray()
      .map((t) => ({ taskId: t.task_id, task: t.task, groundTruth: t.ground_truth }));
  }

  insertTasks(tasks: readonly FrozenTask[], split: TaskSplit = "train"): number {
    const table = TASK_TABLES[split];
    let next = this.sql_.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).one().n;
    let added = 0;
    for (const t of tasks) {
      const r = this.sql_.exec(
        `INSERT INTO ${table} (idx, task_id, task, ground_truth) VALUES (?, ?, ?, ?) ON CONFLICT(task_id) DO NOTHING`,
        next,
        t.taskId,
        t.task,
        t.groundTruth,
      );
      if (r.rowsWritten > 0) {
        next++;
        added++;
      }
    }
    return added;
  }

  unit(key: string): UnitRow | null {
    return this.sql_.exec<UnitRow>("SELECT * FROM units WHERE key = ?", key).toArray()[0] ?? null;
  }

  stepUnits(epoch: number, step: number, stage: UnitStage, task?: number): UnitRow[] {
    return task === undefined
      ? this.sql_
          .exec<UnitRow>("SELECT * FROM units WHERE epoch = ? AND step = ? AND stage = ? ORDER BY task, rollout", epoch, step, stage)
          .toArray()
      : this.sql_
          .exec<UnitRow>(
            "SELECT * FROM units WHERE epoch = ? AND step = ? AND stage = ? AND task = ? ORDER BY rollout",
            epoch,
            step,
            stage,
            task,
          )
          .toArray();
  }

  step(epoch: number, step: number): StepRow | null {
    return this.sql_.exec<StepRow>("SELECT * FROM steps WHERE epoch = ? AND step = ?", epoch, step).toArray()[0] ?? null;
  }

  groups(epoch: number, step: number): GroupRow[] {
    return this.sql_.exec<GroupRow>("SELECT * FROM groups WHERE epoch = ? AND step = ? ORDER BY task", epoch, step).toArray();
  }

  group(epoch: number, step: number, task: number): GroupRow | null {
    return (
      this.sql_.exec<GroupRow>("SELECT * FROM groups WHERE epoch = ? AND step = ? AND task = ?", epoch, step, task).toArray()[0] ?? null
    );
  }

  event(type: string, data: Record<string, unknown>): void {
    const at = this.now();
    this.sql_.exec("INSERT INTO events (at, type, data) VALUES (?, ?, ?)", at, type, JSON.stringify({ at, ...data }));
  }

  /** Events after an id, their data as stored JSON (it goes to the event stream as it is). */
  events(after: number, limit: number): { id: number; type: string; data: string }[] {
    return this.sql_
      .exec<{ id: number; type: string; data: string }>("SELECT id, type, data FROM events WHERE id > ? ORDER BY id LIMIT ?", after, limit)
      .toArray();
  }

  /** The run's evaluations, all or only those in the given statuses, by epoch, round and split. */
  evals(...statuses: EvalStatus[]): EvalRow[] {
    const where = statuses.length ? `WHERE status IN (${statuses.map(() => "?").join(", ")})` : "";
    return this.sql_.exec<EvalRow>(`SELECT * FROM run_evals ${where} ORDER BY epoch, round, split`, ...statuses).toArray();
  }

  promotion(): Promotion | null {
    const p = this.mustRun().promotion;
    return p ? (JSON.parse(p) as Promotion) : null;
  }
}
