import { and, eq, inArray } from "drizzle-orm";
import type { Env } from "../../env";
import type { Logger } from "../../core/logger";
import { db } from "../../db/client";
import { evaluations } from "../../db/schema";
import type { RolloutAnswer } from "../../core/practice/run-types";
import type { EvaluationOutcome, FrozenTask, RunEvaluationRequest, RunFacts } from "../../core/practice/ports";
import { isRequestFault } from "../../core/errors";
import { runUnit, type UnitPurposes } from "../../practice/run-unit";
import { tenantWebhookSecret } from "../records/tenant-secrets";
import { recordLateRollout, type RolloutRef } from "./late-rollout";
import { evaluationObject, frozenTasks, launch, prepareTasks, rowOf, type Prepared, type Settings } from "./evaluation-setup";

/**
 * The evaluations' own machinery, which no client calls directly: their units off the queue, the
 * held-out evaluations a practice run launches through its port, late webhook results, and the
 * cancellation that follows an agent's deletion.
 */

const EVALUATION_PURPOSES: UnitPurposes = { rollout: "evaluation-rollout", judge: "evaluation-judge" };

export const runEvaluationUnit = (msg: { evaluationId: string; key: string }, env: Env, log: Logger, delivery: { attempts: number }) =>
  runUnit(evaluationObject(env, msg.evaluationId), msg.key, env, log, delivery, EVALUATION_PURPOSES, (tenantId) =>
    tenantWebhookSecret(env, tenantId),
  );

/**
 * Starts the evaluation of one of a practice run's libraries, with the run's policy and verifier
 * and the request's seed (the same seed for every library of a round, so libraries are compared on
 * the same draws) on the tasks of its split frozen in the run when it was created (the same tasks
 * each epoch, whatever happens to the dataset meanwhile). Safe to repeat: the id is fixed by the
 * run, epoch, split and round, and every step is idempotent. A problem that retrying cannot fix
 * (a verifier that cannot score the tasks) comes back as the evaluation's failure; anything else
 * throws and the run's alarm tries again.
 */
export async function launchRunEvaluation(
  env: Env,
  run: RunFacts,
  e: RunEvaluationRequest,
  frozen: FrozenTask[],
): Promise<EvaluationOutcome | null> {
  const who = { tenantId: run.tenantId, agentId: run.agentId };
  const cfg = run.config;
  const evaluate = cfg.evaluate!;
  const settings: Settings = {
    datasetId: run.datasetId,
    split: e.split,
    samples: evaluate.samples,
    policy: cfg.policy,
    verifier: cfg.verifier,
    seed: e.seed,
  };
  let prepared: Awaited<ReturnType<typeof prepareTasks>>;
  try {
    // Runs created before their tasks were frozen with them read the dataset, as they always did.
    prepared = frozen.length ? frozenTasks(settings, frozen) : await prepareTasks(env, who, settings, false);
  } catch (err) {
    if (isRequestFault(err)) {
      return { status: "failed", accuracy: null, interval: null, tasks: null, tokens: 0, costUsd: 0, error: err.message };
    }
    throw err;
  }
  const p: Prepared = {
    evaluationId: e.evaluationId,
    config: {
      ...settings,
      library: { runId: run.runId },
      verifier: prepared.verifier,
      seed: prepared.seed,
      libraryVersion: null,
      practice: { runId: run.runId, epoch: e.epoch },
    },
    library: e.library.map((x) => ({ id: x.id, text: x.text })),
    tasks: prepared.tasks,
  };
  await db(env)
    .insert(evaluations)
    .values(rowOf(who, p, ""))
    .onConflictDoNothing()
    .run();
  await launch(env, who, p);
  return null;
}

/** Evaluation ids start with this, which tells an evaluation's rollout id from a practice run's. */
export const isEvaluationId = (id: string) => id.startsWith("ev_");

/**
 * Records the late result of an evaluation's webhook rollout (the agent answered 202). The
 * evaluation must belong to the key's tenant (and agents), else it is a 404 like a missing one.
 */
export async function evaluationRolloutResult(
  env: Env,
  key: { tenantId: string; agentIds: string[] | null },
  ref: RolloutRef,
  answer: RolloutAnswer,
  secret: string | null,
): Promise<"accepted" | "duplicate"> {
  const row = await db(env)
    .select({ agentId: evaluations.agentId })
    .from(evaluations)
    .where(and(eq(evaluations.evaluationId, ref.runId), eq(evaluations.tenantId, key.tenantId)))
    .get();
  return recordLateRollout(key, ref, row?.agentId ?? null, evaluationObject(env, ref.runId), answer, secret);
}

/** Cancels every evaluation of an agent that has not ended (the agent is being deleted); returns how many. */
export async function cancelAgentEvaluations(env: Env, tenantId: string, agentId: string, reason: string): Promise<number> {
  const going = await db(env)
    .select({ evaluationId: evaluations.evaluationId })
    .from(evaluations)
    .where(and(eq(evaluations.tenantId, tenantId), eq(evaluations.agentId, agentId), inArray(evaluations.status, ["queued", "running"])))
    .all();
  for (const { evaluationId } of going) await evaluationObject(env, evaluationId).cancel({ reason });
  return going.length;
}
