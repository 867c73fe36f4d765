import { accuracyOf, mean } from "../../src/core/evaluation/stats";
import type { EvaluationConfig, EvaluationStatus, EvaluationView } from "../../src/core/evaluation/types";
import type { FrozenTask } from "../../src/core/practice/ports";
import { labelOf } from "../../src/core/practice/plan";
import { rolloutSeed } from "../../src/core/practice/rng";
import { rolloutIdOf, unitKey } from "../../src/core/practice/unit-key";
import {
  sameRolloutResult,
  type Claim,
  type RolloutOutcome,
  type UnitData,
  type UnitInput,
  type UnitResult,
} from "../../src/core/practice/units";
import { isGroupVerifier, isRemoteVerifier, majorityVerdicts, verifyAnswer } from "../../src/core/verifiers";
import { awaitingMs, unitWorkMs } from "../../src/core/practice/unit-timing";
import { UnitLedger, type Holder, type LedgerUnit } from "../unit-ledger";
import { parseStored as parse } from "../../src/core/encoding";

/** Units of one evaluation in flight at once. */
export const CONCURRENCY = 16;
/** How soon the alarm comes back for work that waits to be sent or mirrored. */
const RETRY_MS = 30_000;

export interface EvaluationInit {
  evaluationId: string;
  tenantId: string;
  agentId: string;
  datasetId: string;
  config: EvaluationConfig;
  library: { id: string; text: string }[];
}

interface EvalRow extends Record<string, SqlStorageValue> {
  evaluation_id: string;
  tenant_id: string;
  agent_id: string;
  dataset_id: string;
  config: string;
  library: string;
  status: EvaluationStatus;
  error: string | null;
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

interface UnitRow extends LedgerUnit, Record<string, SqlStorageValue> {
  task: number;
  sample: number;
  stage: "rollout" | "verify";
  reward: number | null;
  verdict: string | null;
}

interface TaskRow extends Record<string, SqlStorageValue> {
  idx: number;
  task_id: string;
  task: string;
  ground_truth: string | null;
}

const keyOf = (task: number, sample: number, stage: "rollout" | "verify") => unitKey({ epoch: 0, step: 0, task, rollout: sample, stage });

/**
 * One evaluation: every task of the split answered `samples` times by the policy with a fixed
 * library, each answer scored by the verifier. Like a practice run's units, every unit is keyed by
 * (task, sample, stage) and its result stored under the key, so a redelivered or resent message
 * changes nothing. Every transition is synchronous and runs inside the DO's transaction.
 */
export class EvaluationMachine {
  private readonly ledger: UnitLedger;

  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number,
  ) {
    this.ledger = new UnitLedger(sql, now);
  }

  row(): EvalRow | null {
    return this.sql.exec<EvalRow>("SELECT * FROM evaluation WHERE id = 1").toArray()[0] ?? null;
  }

  private must(): EvalRow {
    const r = this.row();
    if (!r) throw new Error("evaluation not initialised");
    return r;
  }

  private config(): EvaluationConfig {
    return JSON.parse(this.must().config) as EvaluationConfig;
  }

  private update(fields: Partial<EvalRow>): void {
    const keys = Object.keys(fields);
    this.sql.exec(
      `UPDATE evaluation SET ${keys.map((k) => `${k} = ?`).join(", ")}, updated_at = ? WHERE id = 1`,
      ...keys.map((k) => fields[k] as SqlStorageValue),
      this.now(),
    );
  }

  private unit(key: string): UnitRow | null {
    return this.ledger.unit<UnitRow>(key);
  }

  private task(idx: number): TaskRow {
    return this.sql.exec<TaskRow>("SELECT * FROM tasks WHERE idx = ?", idx).one();
  }

  private createUnit(task: number, sample: number, stage: "rollout" | "verify"): void {
    this.ledger.create(keyOf(task, sample, stage), { task, sample, stage });
  }

  init(input: EvaluationInit): void {
    const t = this.now();
    this.sql.exec(
      `INSERT INTO evaluation (id, evaluation_id, tenant_id, agent_id, dataset_id, config, library, status, created_at, updated_at)
       VALUES (1, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
      input.evaluationId,
      input.tenantId,
      input.agentId,
      input.datasetId,
      JSON.stringify(input.config),
      JSON.stringify(input.library),
      t,
      t,
    );
  }

  insertTasks(tasks: readonly FrozenTask[]): number {
    let next = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM tasks").one().n;
    const first = next;
    for (const t of tasks) {
      const r = this.sql.exec(
        "INSERT INTO tasks (idx, task_id, task, ground_truth) VALUES (?, ?, ?, ?) ON CONFLICT(task_id) DO NOTHING",
        next,
        t.taskId,
        t.task,
        t.groundTruth,
      );
      if (r.rowsWritten > 0) next++;
    }
    return next - first;
  }

  /** Queued → running: one rollout unit per task and sample. False when it already started. */
  start(): boolean {
    if (this.must().status !== "queued") return false;
    const { samples } = this.config();
    const tasks = this.sql.exec<{ idx: number }>("SELECT idx FROM tasks ORDER BY idx").toArray();
    for (const { idx } of tasks) for (let s = 0; s < samples; s++) this.createUnit(idx, s, "rollout");
    this.update({ status: "running", started_at: this.now() });
    return true;
  }

  private running(): boolean {
    return this.row()?.status === "running";
  }

  fail(error: string): void {
    if (!this.running()) return;
    this.update({ status: "failed", error, ended_at: this.now() });
  }

  /** Stops a queued or running evaluation (its practice run was cancelled); its units in flight are closed. False when it had ended. */
  cancel(reason: string): boolean {
    const row = this.row();
    if (!row || (row.status !== "queued" && row.status !== "running")) return false;
    this.ledger.closeAll(`cancelled: ${reason}`);
    this.update({ status: "cancelled", error: reason, ended_at: this.now() });
    return true;
  }

  /** Hands out a dispatched unit's input under a lease (see the unit ledger). */
  claim(key: string, holder: Holder): Claim {
    const unit = this.unit(key);
    if (!unit) return { status: "void" };
    if (unit.status === "done" || unit.status === "awaiting") return { status: "done" };
    if (!this.running()) return { status: "void" };
    const c = this.ledger.claim(key, unitWorkMs(unit.stage, this.config().policy));
    if (c.status !== "run") return c;
    // A webhook rollout gets a fresh holder whose secret goes with the dispatch.
    if (unit.stage !== "rollout" || this.config().policy.kind !== "webhook")
      return { status: "run", lease: c.lease, input: this.inputFor(unit) };
    this.ledger.bindHolder(key, holder);
    return { status: "run", lease: c.lease, input: { ...this.inputFor(this.unit(key)!), resultSecret: holder.secret } as UnitInput };
  }

  release(key: string, lease: number): void {
    this.ledger.release(key, lease);
  }

  heartbeat(key: string, lease: number): boolean {
    return this.ledger.heartbeat(key, lease);
  }

  private inputFor(u: UnitRow): UnitInput {
    const row = this.must();
    const cfg = this.config();
    const ctx = { runId: row.evaluation_id, tenantId: row.tenant_id, agentId: row.agent_id };
    const task = this.task(u.task);
    if (u.stage === "rollout") {
      const library = (JSON.parse(row.library) as { text: string }[]).map((e, i) => ({ label: labelOf(i), text: e.text }));
      return {
        ...ctx,
        stage: "rollout",
        rolloutId: rolloutIdOf(row.evaluation_id, u.key, u.dispatch_id),
        taskId: task.task_id,
        task: task.task,
        policy: cfg.policy,
        library,
        // The same seed gives both sides of a comparison the same sampling seeds, task by task.
        seed: rolloutSeed(cfg.seed, 0, u.task, u.sample),
      };
    }
    const rollout = this.unit(keyOf(u.task, u.sample, "rollout"))!;
    const answer = parse<UnitResult<UnitData["rollout"]>>(rollout.result)?.data?.answer ?? "";
    return {
      ...ctx,
      stage: "verify",
      taskId: task.task_id,
      task: task.task,
      answer,
      groundTruth: task.ground_truth,
      verifier: cfg.verifier,
    };
  }

  /** Stores a unit's result once and scores it. Returns false when nothing changed. */
  report(key: string, result: UnitResult): boolean {
    const unit = this.unit(key);
    if (!unit || unit.status === "done" || !this.running()) return false;
    const u = result.usage;
    if (u) {
      this.sql.exec(
        "UPDATE evaluation SET calls = calls + ?, tokens_in = tokens_in + ?, tokens_out = tokens_out + ?, cost_usd = cost_usd + ? WHERE id = 1",
        u.calls,
        u.tokensIn,
        u.tokensOut,
        u.costUsd,
      );
    }
    const cfg = this.config();
    if (result.awaiting && unit.stage === "rollout" && !result.error) {
      this.ledger.toAwaiting(key, awaitingMs(cfg.policy));
      return true;
    }
    this.ledger.finish(key, JSON.stringify(result), result.error ?? null);
    if (result.fatal || result.budgetExceeded) {
      this.fail(result.error ?? "a unit failed fatally");
      return true;
    }
    if (unit.stage === "verify") {
      const v = result.data as UnitData["verify"] | undefined;
      const rolloutKey = keyOf(unit.task, unit.sample, "rollout");
      if (result.error || !v) this.setReward(rolloutKey, 0, `verification failed: ${result.error ?? "no verdict"}`);
      else this.setReward(rolloutKey, v.reward, v.reasoning);
    } else {
      const d = result.data as UnitData["rollout"] | undefined;
      if (result.error || !d) this.setReward(key, 0, `rollout failed: ${result.error ?? "no answer"}`);
      else if (isRemoteVerifier(cfg.verifier)) this.createUnit(unit.task, unit.sample, "verify");
      else if (isGroupVerifier(cfg.verifier)) this.voteTask(unit.task);
      else {
        const task = this.task(unit.task);
        const v = verifyAnswer(cfg.verifier, { task: task.task, answer: d.answer, groundTruth: task.ground_truth });
        this.setReward(key, v.reward, v.reasoning);
      }
    }
    this.completeIfScored();
    return true;
  }

  /** The majority verifier scores a task's samples together, once all of them have answered. */
  private voteTask(task: number): void {
    const rollouts = this.sql.exec<UnitRow>("SELECT * FROM units WHERE stage = 'rollout' AND task = ? ORDER BY sample", task).toArray();
    if (rollouts.some((r) => r.status !== "done")) return;
    const answered = rollouts.filter((r) => r.reward === null);
    const answers = answered.map((r) => parse<UnitResult<UnitData["rollout"]>>(r.result)?.data?.answer ?? "");
    majorityVerdicts(answers).forEach((v, i) => this.setReward(answered[i]!.key, v.reward, v.reasoning));
  }

  private setReward(rolloutKey: string, reward: number, verdict: string): void {
    this.sql.exec(
      "UPDATE units SET reward = ?, verdict = ? WHERE key = ?",
      Math.min(1, Math.max(0, reward)),
      verdict.slice(0, 2000),
      rolloutKey,
    );
  }

  private completeIfScored(): void {
    const open = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM units WHERE stage = 'rollout' AND reward IS NULL").one().n;
    if (open === 0 && this.running()) this.update({ status: "completed", ended_at: this.now() });
  }

  /** The result of a webhook rollout that answered 202, posted later by its holder (see RolloutOutcome). */
  rolloutResult(key: string, dispatchId: string, secretHash: string | null, data: UnitData["rollout"]): RolloutOutcome {
    const unit = this.unit(key);
    if (!unit || unit.stage !== "rollout") return "unknown";
    const check = this.ledger.checkHolder(key, dispatchId, secretHash);
    if (check !== "ok") return check;
    if (unit.status === "done") return sameRolloutResult(unit.result, data) ? "duplicate" : "conflict";
    return this.report(key, { data }) ? "accepted" : "finished";
  }

  /** Marks pending units as sent, up to the concurrency, and returns their keys for the shell to enqueue. */
  takeDispatch(): string[] {
    return this.running() ? this.ledger.dispatch(CONCURRENCY) : [];
  }

  unsend(keys: readonly string[]): void {
    this.ledger.unsend(keys);
  }

  /** The alarm's work while the evaluation runs: overdue units go back to the queue or score 0 with the reason (UnitLedger.sweepOverdue). */
  sweepOverdue(): void {
    if (this.running()) this.ledger.sweepOverdue((key, result) => this.report(key, result));
  }

  markSynced(status: EvaluationStatus): void {
    this.update({ synced_status: status });
  }

  nextAlarm(): number | null {
    const row = this.must();
    if (!this.running()) return row.synced_status !== row.status ? this.now() + RETRY_MS : null;
    const next = this.ledger.nextWake();
    if (this.ledger.pending() > 0 || row.synced_status !== row.status) return Math.min(next ?? Infinity, this.now() + RETRY_MS);
    return next;
  }

  /** Each task's rewards, one per sample in sample order (null while a sample is unscored). */
  taskRewards(): { taskId: string; rewards: (number | null)[] }[] {
    const rows = this.sql
      .exec<{ task_id: string; reward: number | null }>(
        "SELECT t.task_id, u.reward FROM units u JOIN tasks t ON t.idx = u.task WHERE u.stage = 'rollout' ORDER BY u.task, u.sample",
      )
      .toArray();
    const byTask = new Map<string, (number | null)[]>();
    for (const r of rows) {
      const list = byTask.get(r.task_id) ?? [];
      list.push(r.reward);
      byTask.set(r.task_id, list);
    }
    return [...byTask].map(([taskId, rewards]) => ({ taskId, rewards }));
  }

  view(): EvaluationView {
    const row = this.must();
    const cfg = this.config();
    const tasks = this.taskRewards().map((t) => ({
      ...t,
      meanReward: t.rewards.every((r) => r !== null) ? mean(t.rewards as number[]) : null,
    }));
    const done = tasks.reduce((n, t) => n + t.rewards.filter((r) => r !== null).length, 0);
    const total = tasks.reduce((n, t) => n + t.rewards.length, 0);
    const acc =
      row.status === "completed"
        ? accuracyOf(
            tasks.map((t) => t.rewards as number[]),
            { seed: cfg.seed },
          )
        : null;
    return {
      evaluationId: row.evaluation_id,
      agentId: row.agent_id,
      datasetId: row.dataset_id,
      status: row.status,
      config: cfg,
      librarySize: (JSON.parse(row.library) as unknown[]).length,
      progress: { done, total },
      accuracy: acc?.accuracy ?? null,
      interval: acc?.interval ?? null,
      tasks: tasks.map((t) => ({ taskId: t.taskId, meanReward: t.meanReward, rewards: t.rewards })),
      usage: { calls: row.calls, tokensIn: row.tokens_in, tokensOut: row.tokens_out, costUsd: row.cost_usd },
      error: row.error,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      startedAt: row.started_at,
      endedAt: row.ended_at,
    };
  }
}
