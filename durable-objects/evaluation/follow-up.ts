import { eq } from "drizzle-orm";
import type { Env } from "../../src/env";
import { db } from "../../src/db/client";
import { evaluations } from "../../src/db/schema";
import { isEvaluationDone, type EvaluationView } from "../../src/core/evaluation/types";
import type { EvaluationOutcome } from "../practice-run/evaluations";

/**
 * What follows from an evaluation settling, done by the Evaluation Durable Object itself through
 * what it owns (the D1 binding, the practice run's Durable Object): never through a service, so
 * the dependency between services and Durable Objects points one way.
 */

/** What a settled evaluation reports to its practice run. */
export const outcomeOf = (view: EvaluationView): EvaluationOutcome => ({
  status: view.status === "completed" ? "completed" : "failed",
  accuracy: view.accuracy,
  interval: view.interval,
  tokens: view.usage.tokensIn + view.usage.tokensOut,
  costUsd: view.usage.costUsd,
  error: view.error,
});

/** A run's evaluation once it has settled; null while it is still going. */
export async function settledEvaluation(env: Env, evaluationId: string): Promise<EvaluationOutcome | null> {
  const view = (await env.EVALUATION.getByName(evaluationId).view()) as EvaluationView | null;
  return view && isEvaluationDone(view.status) ? outcomeOf(view) : null;
}

/** Tells the practice run that one of its evaluations settled (repeating it is harmless). */
export async function reportToPracticeRun(env: Env, view: EvaluationView) {
  const practice = view.config.practice;
  if (!practice || !isEvaluationDone(view.status)) return;
  await env.PRACTICE_RUN.getByName(practice.runId).evaluationDone(practice.epoch, outcomeOf(view));
}

/** Mirrors an evaluation's status and result into its D1 row, for listing. */
export async function syncEvaluationRow(env: Env, view: EvaluationView) {
  const summary = view.accuracy === null ? null : { accuracy: view.accuracy, interval: view.interval, tasks: view.tasks.length, usage: view.usage };
  await db(env)
    .update(evaluations)
    .set({ status: view.status, summary, error: view.error, updatedAt: Date.now() })
    .where(eq(evaluations.evaluationId, view.evaluationId))
    .run();
}
