import { labelOf } from "../../src/core/practice/plan";
import type { Curve, EpochEvaluation, RunView } from "../../src/core/practice/run-types";
import type { UnitData, UnitResult } from "../../src/core/practice/units";
import type { EvalRow, RunStore, StepRow, UnitRow } from "./store";
import { hindsightTotals } from "./hindsight-step";
import { parseStored as parse } from "../../src/core/encoding";

const epochOut = (e: EvalRow): EpochEvaluation => ({
  epoch: e.epoch,
  evaluationId: e.evaluation_id,
  split: e.split,
  round: e.round,
  status: e.status,
  holdoutAccuracy: e.accuracy,
  interval: e.interval_low === null || e.interval_high === null ? null : [e.interval_low, e.interval_high],
  librarySize: (JSON.parse(e.library) as unknown[]).length,
  tokens: e.tokens,
  costUsd: e.cost_usd,
  error: e.error,
});

/** Read models of a run for the API: nothing here writes. */
export class RunViews {
  constructor(private readonly store: RunStore) {}

  view(): RunView {
    const run = this.store.mustRun();
    const counts = this.store.sqlOne<{ done: number | null; groupsKept: number | null; groupsFiltered: number | null }>(
      `SELECT (SELECT SUM(status = 'done') FROM units WHERE stage = 'rollout') AS done,
              (SELECT SUM(kept) FROM groups) AS groupsKept,
              (SELECT SUM(1 - kept) FROM groups) AS groupsFiltered`,
    );
    const cfg = this.store.config();
    const tasks = this.store.taskCount();
    const current = this.store.step(run.epoch, run.step);
    const steps = this.store.sqlAll<{ epoch: number; step: number; mean_reward: number | null }>(
      "SELECT epoch, step, mean_reward FROM steps WHERE status = 'done' ORDER BY epoch, step",
    );
    return {
      runId: run.run_id,
      agentId: run.agent_id,
      datasetId: run.dataset_id,
      status: run.status,
      config: cfg,
      progress: {
        epoch: run.epoch,
        step: run.step,
        stage: run.status === "running" && current ? this.stageOf(current) : null,
        stepsPerEpoch: run.steps_per_epoch,
        rollouts: { done: counts.done ?? 0, total: tasks * cfg.groupSize * cfg.epochs },
        groups: { kept: counts.groupsKept ?? 0, filtered: counts.groupsFiltered ?? 0 },
      },
      trainReward: steps.map((s) => ({ epoch: s.epoch, step: s.step, meanReward: s.mean_reward })),
      usage: { calls: run.calls, tokensIn: run.tokens_in, tokensOut: run.tokens_out, costUsd: run.cost_usd },
      librarySize: this.store.library().length,
      hindsight: hindsightTotals(this.store),
      promotion: this.store.promotion(),
      evaluations: this.store.evals().map(epochOut),
      stoppedEarly: run.stopped_early ?? null,
      error: run.error,
      createdAt: run.created_at,
      updatedAt: run.updated_at,
      startedAt: run.started_at,
      endedAt: run.ended_at,
    };
  }

  /** The earliest stage of the step that still has work outstanding. */
  private stageOf(s: StepRow) {
    if (s.status === "done") return "apply" as const;
    const open = this.store.sqlAll<{ stage: string }>(
      "SELECT DISTINCT stage FROM units WHERE epoch = ? AND step = ? AND status != 'done'",
      s.epoch,
      s.step,
    );
    const stages = new Set(open.map((o) => o.stage));
    for (const st of ["rollout", "verify", "summary", "advantage", "hindsight", "batch"] as const) if (stages.has(st)) return st;
    return "apply" as const;
  }

  private stepOut(s: StepRow, detail: boolean) {
    const n = s.epoch * this.store.mustRun().steps_per_epoch + s.step;
    const base = {
      n,
      epoch: s.epoch,
      step: s.step,
      status: s.status,
      tasks: (JSON.parse(s.tasks) as number[]).length,
      meanReward: s.mean_reward,
      librarySize: s.library_size,
      usage: { calls: s.calls, tokensIn: s.tokens_in, tokensOut: s.tokens_out, costUsd: s.cost_usd },
      startedAt: s.started_at,
      endedAt: s.ended_at,
    };
    if (!detail) return base;
    const record = parse<Record<string, unknown>>(s.record);
    const snapshot = (JSON.parse(s.snapshot) as { id: string; text: string }[]).map((e, i) => ({
      label: labelOf(i),
      id: e.id,
      text: e.text,
    }));
    return { ...base, library: snapshot, ...(record ?? { groups: this.liveGroups(s) }) };
  }

  private liveGroups(s: StepRow) {
    return this.store.groups(s.epoch, s.step).map((g) => ({
      taskId: this.store.task(g.task).task_id,
      kept: g.kept === 1,
      meanReward: g.mean_reward,
      rewards: JSON.parse(g.rewards) as number[],
      reason: g.reason,
    }));
  }

  steps() {
    return this.store.sqlAll<StepRow>("SELECT * FROM steps ORDER BY epoch, step").map((s) => this.stepOut(s, false));
  }

  stepDetail(n: number) {
    const perEpoch = this.store.mustRun().steps_per_epoch;
    if (perEpoch <= 0) return null;
    const s = this.store.step(Math.floor(n / perEpoch), n % perEpoch);
    return s ? this.stepOut(s, true) : null;
  }

  rollouts(filter: { epoch?: number; step?: number; taskId?: string; limit: number; after?: number }) {
    const where = ["u.stage = 'rollout'", "u.seq > ?"];
    const params: SqlStorageValue[] = [filter.after ?? 0];
    if (filter.epoch !== undefined) where.push("u.epoch = ?"), params.push(filter.epoch);
    if (filter.step !== undefined) where.push("u.step = ?"), params.push(filter.step);
    if (filter.taskId !== undefined) where.push("t.task_id = ?"), params.push(filter.taskId);
    const rows = this.store.sqlAll<UnitRow & { task_id: string }>(
      `SELECT u.*, t.task_id FROM units u JOIN tasks t ON t.idx = u.task WHERE ${where.join(" AND ")} ORDER BY u.seq LIMIT ?`,
      ...params,
      filter.limit + 1,
    );
    const page = rows.slice(0, filter.limit);
    return {
      items: page.map((u) => {
        const r = parse<UnitResult<UnitData["rollout"]>>(u.result);
        return {
          key: u.key,
          epoch: u.epoch,
          step: u.step,
          taskId: u.task_id,
          rollout: u.rollout!,
          status: u.status,
          answer: r?.data?.answer ?? null,
          trajectory: r?.data?.trajectory ?? null,
          reward: u.reward,
          reasoning: u.verdict,
          error: u.error,
          usage: r?.usage ?? null,
        };
      }),
      next: rows.length > filter.limit ? page[page.length - 1]!.seq : null,
    };
  }

  curve(): Curve {
    const steps = this.store.sqlAll<StepRow>("SELECT * FROM steps WHERE status = 'done' ORDER BY epoch, step");
    return {
      steps: steps.map((s) => ({
        epoch: s.epoch,
        step: s.step,
        trainReward: s.mean_reward,
        librarySize: s.library_size ?? 0,
        tokens: s.tokens_in + s.tokens_out,
      })),
      epochs: this.store.evals().map(epochOut),
      promotion: this.store.promotion(),
    };
  }

  library() {
    const start = new Map(this.store.startLibrary().map((e) => [e.id, e.text]));
    return {
      items: this.store.library().map((e, i) => ({
        label: labelOf(i),
        id: e.id,
        text: e.text,
        changed: start.get(e.id) !== e.text,
        lineage: e.lineage,
      })),
      removed: [...start.keys()].filter((id) => !this.store.library().some((e) => e.id === id)),
    };
  }
}
