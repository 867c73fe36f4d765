import { eq } from "drizzle-orm";
import type { Env } from "../../env";
import { db } from "../../db/client";
import { evaluations } from "../../db/schema";
import { isEvaluationDone, type EvaluationView } from "../../core/evaluation/types";
import type { EvaluationOutcome, EvaluationPorts, PracticeRunPorts } from "../../core/practice/ports";
import { admitQueuedRuns, practiceRunObject, promoteRun, syncRunRow } from "../practice/runs";
import { launchRunEvaluation } from "../practice/evaluations";
import { evaluationObject } from "../practice/evaluation-setup";
import { emitRunEvents } from "../events/delivery";

/**
 * The ports of the practice and evaluation Durable Objects (src/core/practice/ports.ts),
 * implemented with the same platform functions the use cases and the cron use. src/wiring.ts hands them to each object.
 */

export const practiceRunPorts = (env: Env): PracticeRunPorts => ({
  launchEvaluation: (run, evaluation, tasks) => launchRunEvaluation(env, run, evaluation, tasks),
  evaluationOutcome: (evaluationId) => settledEvaluation(env, evaluationId),
  cancelEvaluation: (evaluationId, reason) => evaluationObject(env, evaluationId).cancel({ reason }),
  promote: (run, start, final, why) => promoteRun(env, run, start, final, why),
  // Events follow the row, so a repeated sync (the alarm repeats one cut short) repeats events with the same ids, sent once.
  syncRow: async (runId, fields) => {
    await syncRunRow(env, runId, fields);
    await emitRunEvents(env, runId, fields);
  },
  admitQueued: async (tenantId) => {
    await admitQueuedRuns(env, tenantId);
  },
});

export const evaluationPorts = (env: Env): EvaluationPorts => ({
  syncRow: (view) => syncEvaluationRow(env, view),
  reportToRun: (view) => reportToPracticeRun(env, view),
});

/** What a settled evaluation reports to its practice run. */
const outcomeOf = (view: EvaluationView): EvaluationOutcome => ({
  status: view.status === "completed" ? "completed" : "failed",
  accuracy: view.accuracy,
  interval: view.interval,
  tasks: view.tasks.map((t) => ({ taskId: t.taskId, rewards: t.rewards })),
  tokens: view.usage.tokensIn + view.usage.tokensOut,
  costUsd: view.usage.costUsd,
  error: view.error,
});

/** A run's evaluation once it has settled; null while it is still going. */
async function settledEvaluation(env: Env, evaluationId: string): Promise<EvaluationOutcome | null> {
  // The RPC type widens the interval tuple to an array; the value is the DO's EvaluationView.
  const view = (await evaluationObject(env, evaluationId).view()) as EvaluationView | null;
  return view && isEvaluationDone(view.status) ? outcomeOf(view) : null;
}

/** Tells the practice run that one of its evaluations settled (repeating it is harmless). */
async function reportToPracticeRun(env: Env, view: EvaluationView) {
  const practice = view.config.practice;
  if (!practice || !isEvaluationDone(view.status)) return;
  await practiceRunObject(env, practice.runId).evaluationDone({
    evaluationId: view.evaluationId,
    epoch: practice.epoch,
    outcome: outcomeOf(view),
  });
}

/** Mirrors an evaluation's status and result into its D1 row, for listing. */
async function syncEvaluationRow(env: Env, view: EvaluationView) {
  const summary =
    view.accuracy === null ? null : { accuracy: view.accuracy, interval: view.interval, tasks: view.tasks.length, usage: view.usage };
  await db(env)
    .update(evaluations)
    .set({ status: view.status, summary, error: view.error, updatedAt: Date.now() })
    .where(eq(evaluations.evaluationId, view.evaluationId))
    .run();
}
