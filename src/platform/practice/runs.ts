import { recordLateRollout, type RolloutRef } from "./late-rollout";
import { and, asc, count, eq, inArray } from "drizzle-orm";
import type { Env } from "../../env";
import { db } from "../../db/client";
import { datasetTasks, practiceRuns } from "../../db/schema";
import { datasetSplit, splitTasks } from "../records/dataset-tasks";
import { carveValidation } from "../../core/practice/split";
import type { Split } from "../../core/practice/dataset-types";
import { tenantWebhookSecret } from "../records/tenant-secrets";
import { sha256Hex } from "../../core/api-key";
import {
  RunEvaluateSchema,
  type Promotion,
  type RunView,
  type RolloutAnswer,
  type RunConfig,
  type RunCreate,
  type RunStatus,
} from "../../core/practice/run-types";
import type { RunExperience } from "../../core/practice/plan";
import { originOf } from "../../core/practice/hindsight";
import { unpromotedReason } from "../../core/practice/promotion";
import type { FrozenTask, RunFacts, RunRowFields } from "../../core/practice/ports";
import { defaultVerifier, needsGroundTruth } from "../../core/verifiers";
import type { VerifierConfig } from "../../core/verifiers/schema";
import { checkWebhookUrl, webhookUrlModeOf, type WebhookUrlMode } from "../../core/webhook-url";
import { conflict, isRequestFault, isRetryable, notFound, unprocessable } from "../../core/errors";
import { llmConfigured, LlmNotConfiguredError } from "../../llm";
import { resilientMemory } from "../objects/agent-access";
import { resilientObject } from "../objects/object-stub";
import type { PracticeRun, TaskSplit } from "../../../durable-objects/practice-run";
import { PRACTICE_RUN_CONTRACT } from "../../../durable-objects/practice-run/contract";
import { variables } from "../../config";
import { libraryMemoryId } from "../../core/shared-lessons";
import { libraryRow } from "../objects/lesson-target";

/** The run's Durable Object as the platform calls it, by its contract (durable-objects/practice-run/contract.ts). */
export const practiceRunObject = (env: Env, runId: string) =>
  resilientObject<PracticeRun>(PRACTICE_RUN_CONTRACT, () => env.PRACTICE_RUN.getByName(runId), {
    outcomes: false,
    faults: { subject: "This practice run", unrepeated: "look at the run before retrying" },
  });

/** Webhook URLs may be plain http and loopback only in local development and tests. */
export const webhookUrlMode = (env: Env): WebhookUrlMode => webhookUrlModeOf(variables(env).PRAXIS_ENV);

/** Tasks go to the run's Durable Object in pieces that stay well under the RPC message limit. */
const TASK_CHUNK = 500;

interface Caller {
  tenantId: string;
  agentId: string;
}

/**
 * The library a run starts from and promotes into: the agent's own, or the shared library it
 * practises on (an AgentMemory object of its own, called as the agent's is).
 */
const practisedMemory = (env: Env, run: { tenantId: string; agentId: string }, config: Pick<RunConfig, "libraryId">) =>
  resilientMemory(env, run.tenantId, config.libraryId ? libraryMemoryId(config.libraryId) : run.agentId);

/** Everything that could be wrong with a run request is found here, before anything is stored. */
export async function prepare(env: Env, who: Caller, body: RunCreate) {
  if (body.libraryId && !(await libraryRow(env, who.tenantId, body.libraryId)))
    throw notFound(`Library '${body.libraryId}' does not exist.`);
  const { ds, tasks } = await datasetSplit(env, who.tenantId, body.datasetId, "train");
  if (tasks.length === 0) {
    throw unprocessable(`Dataset '${ds.id}' has no train tasks to practise on.`, [{ path: "datasetId", message: "No train tasks" }]);
  }
  const withTruth = tasks.filter((t) => t.groundTruth !== null && t.groundTruth !== "").length;
  const verifier: VerifierConfig = body.verifier ?? ds.verifier ?? defaultVerifier(body.useGroundTruth && withTruth === tasks.length);
  if (needsGroundTruth(verifier) && withTruth < tasks.length) {
    throw unprocessable(
      `The '${verifier.kind}' verifier needs a ground truth, but ${tasks.length - withTruth} of ${tasks.length} train tasks have none. Use 'majority', 'llm-judge' or 'webhook'.`,
      [{ path: "verifier", message: "Needs ground truths the dataset does not have" }],
    );
  }
  const mode = webhookUrlMode(env);
  for (const [path, url] of [
    ["policy.url", body.policy.kind === "webhook" ? body.policy.url : null],
    ["verifier.url", verifier.kind === "webhook" ? verifier.url : null],
  ] as const) {
    const problem = url ? checkWebhookUrl(url, mode) : null;
    if (problem) throw unprocessable(`The webhook URL ${problem}.`, [{ path, message: `The URL ${problem}` }]);
  }
  if (body.policy.kind === "webhook" || verifier.kind === "webhook") {
    if (!(await tenantWebhookSecret(env, who.tenantId))) {
      throw unprocessable(
        "Webhook policies and verifiers are signed with the tenant's webhook secret; create one first (POST /v1/webhook-secret).",
        [{ path: body.policy.kind === "webhook" ? "policy.url" : "verifier.url", message: "No webhook secret" }],
      );
    }
  }
  // Summaries, group advantages and batch updates always need an LLM, whatever the policy is.
  if (!llmConfigured(env)) throw new LlmNotConfiguredError();
  const { promote, evaluate } = await promotionSettings(env, ds.id, body);
  const config: RunConfig = {
    ...body,
    verifier,
    promote,
    evaluate,
    seed: body.seed ?? crypto.getRandomValues(new Uint32Array(1))[0]! % 2 ** 31,
  };
  // The tasks evaluations run on are frozen with the run, so every epoch is compared on the same tasks.
  const holdout = evaluate ? await splitTasks(env, ds.id, evaluate.split) : [];
  if (promote !== "best") return { ds, tasks, validation: [], holdout, config };
  // `best` chooses on validation tasks that neither the learner nor the judgment sees.
  const labelled = await splitTasks(env, ds.id, "validation");
  const split = labelled.length ? { train: tasks, validation: labelled } : carveValidation(tasks, config.validationFraction);
  return { ds, tasks: split.train, validation: split.validation, holdout, config };
}

/** Inserts the run's row unless the agent has another run queued or running, in one statement. */
async function insertExclusive(
  env: Env,
  row: { runId: string; tenantId: string; agentId: string; datasetId: string; config: Record<string, unknown> },
) {
  const r = await env.DB.prepare(
    `INSERT INTO practice_runs (run_id, tenant_id, agent_id, dataset_id, status, config)
     SELECT ?1, ?2, ?3, ?4, 'creating', ?5
     WHERE NOT EXISTS (SELECT 1 FROM practice_runs WHERE tenant_id = ?2 AND agent_id = ?3 AND status IN ('creating', 'queued', 'running') AND run_id <> ?1)
     ON CONFLICT DO NOTHING RETURNING run_id AS runId`,
  )
    .bind(row.runId, row.tenantId, row.agentId, row.datasetId, JSON.stringify(row.config))
    .all<{ runId: string }>();
  return r.results;
}

/**
 * Promotion defaults to the holdout gate when the dataset has a holdout split (there is then
 * evidence to decide on), else to `always`; gate and best evaluate each epoch unless told
 * otherwise. `best` chooses on validation tasks (the dataset's, or train tasks set aside), so its
 * judging split must be another one.
 */
async function promotionSettings(env: Env, datasetId: string, body: RunCreate): Promise<Pick<RunConfig, "promote" | "evaluate">> {
  const perSplit = await db(env)
    .select({ split: datasetTasks.split, n: count() })
    .from(datasetTasks)
    .where(eq(datasetTasks.datasetId, datasetId))
    .groupBy(datasetTasks.split)
    .all();
  const countIn = (split: Split) => perSplit.find((r) => r.split === split)?.n ?? 0;
  const promote = body.promote ?? (countIn("holdout") > 0 ? "gate" : "always");
  const gated = promote === "gate" || promote === "best";
  const asked = body.evaluate ?? (gated ? RunEvaluateSchema.parse({}) : null);
  const evaluate = asked && { ...asked, maxSamples: asked.maxSamples ?? Math.min(32, 4 * asked.samples) };
  if (promote === "best" && evaluate?.every !== "epoch") {
    throw unprocessable("'best' picks the best epoch, so it needs an evaluation after every epoch.", [
      { path: "evaluate.every", message: "Must be 'epoch' with promote 'best'" },
    ]);
  }
  if (promote === "best" && evaluate?.split === "validation") {
    throw unprocessable("'best' chooses its epoch on the validation split, so another split must judge it.", [
      { path: "evaluate.split", message: "Must not be 'validation' with promote 'best'" },
    ]);
  }
  if (promote === "best" && countIn("validation") === 0 && countIn("train") < 2) {
    throw unprocessable(
      `'best' chooses its epoch on validation tasks: dataset '${datasetId}' labels none, and one train task cannot be split into train and validation.`,
      [{ path: "promote", message: "No validation tasks" }],
    );
  }
  if (evaluate && countIn(evaluate.split) === 0) {
    const path = body.evaluate ? "evaluate.split" : "promote";
    throw unprocessable(`Dataset '${datasetId}' has no ${evaluate.split} tasks to evaluate on; '${promote}' needs them.`, [
      { path, message: `No ${evaluate.split} tasks` },
    ]);
  }
  return { promote, evaluate };
}

/**
 * Sets up a `creating` run's Durable Object: the run with a copy of the active library it
 * practises (the agent's, or the shared one it names), every train and held-out task, then the
 * seal that freezes them; only then does the D1 row become `queued`, so no admission can see a run
 * that is not whole. Every step is idempotent, so a retried create finishes a setup that was cut short.
 */
async function setUpRun(env: Env, who: Caller, runId: string, datasetId: string, config: RunConfig, sets: Record<TaskSplit, FrozenTask[]>) {
  const memory = practisedMemory(env, who, config);
  const [exported, agentConfig, agentIncarnation] = await Promise.all([memory.exportLibrary(), memory.getConfig(), memory.incarnation()]);
  const library = exported.experiences.filter((e) => e.status === "active").map((e) => ({ id: e.id, text: e.text, q: e.q }));
  // An agent's run draws on its subscriptions as its reads do; a run on a shared library has none.
  const shared = config.libraryId ? [] : await memory.subscribedLessons();
  const stub = practiceRunObject(env, runId);
  try {
    await stub.init({
      runId,
      tenantId: who.tenantId,
      agentId: who.agentId,
      datasetId,
      config,
      library,
      shared,
      priorQ: agentConfig.defaultQ,
      agentIncarnation,
    });
    for (const split of ["train", "validation", "holdout"] as const)
      for (let i = 0; i < sets[split].length; i += TASK_CHUNK) await stub.addTasks({ tasks: sets[split].slice(i, i + TASK_CHUNK), split });
    await stub.seal();
    await env.DB.prepare("UPDATE practice_runs SET status = 'queued', updated_at = ?1 WHERE run_id = ?2 AND status = 'creating'")
      .bind(Date.now(), runId)
      .run();
  } catch (err) {
    // A run that could not be set up must not stay `creating`, blocking the agent's next run.
    await syncRunRow(env, runId, { status: "failed", summary: {}, error: `setting up the run failed: ${String(err)}` });
    throw err;
  }
}

/** The id of the run created with an Idempotency-Key: a retried create finds the first run by it. */
export const keyedRunId = async (who: Caller, idempotencyKey: string) =>
  `run_${(await sha256Hex(`${who.tenantId}|${who.agentId}|${idempotencyKey}`)).slice(0, 24)}`;

/**
 * Creates a run: the D1 row as `creating`, then its Durable Object (see setUpRun). With an
 * Idempotency-Key the run id is derived from it, so a retried create finds the first run instead
 * of starting a second one. `exclusive` refuses (409) while another run of the agent is being
 * created, queued or running, checked in the same statement that inserts.
 */
export async function createRun(env: Env, who: Caller, body: RunCreate, idempotencyKey?: string, opts: { exclusive?: boolean } = {}) {
  const { tasks, validation, holdout, config } = await prepare(env, who, body);
  const sets = { train: tasks, validation, holdout };
  const requestHash = await sha256Hex(JSON.stringify(body));
  const runId = idempotencyKey ? await keyedRunId(who, idempotencyKey) : `run_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
  const row = { runId, tenantId: who.tenantId, agentId: who.agentId, datasetId: body.datasetId, config: { ...config, requestHash } };
  const inserted = opts.exclusive
    ? await insertExclusive(env, row)
    : await db(env)
        .insert(practiceRuns)
        .values({ ...row, status: "creating" })
        .onConflictDoNothing()
        .returning({ runId: practiceRuns.runId })
        .all();
  if (inserted.length === 0) {
    const prior = await db(env).select().from(practiceRuns).where(eq(practiceRuns.runId, runId)).get();
    if (!prior && opts.exclusive) {
      const going = await db(env)
        .select({ runId: practiceRuns.runId })
        .from(practiceRuns)
        .where(
          and(
            eq(practiceRuns.tenantId, who.tenantId),
            eq(practiceRuns.agentId, who.agentId),
            inArray(practiceRuns.status, ["creating", "queued", "running"]),
          ),
        )
        .get();
      throw conflict(`Practice run '${going?.runId ?? "unknown"}' of this agent is still going.`);
    }
    if (!prior || prior.tenantId !== who.tenantId || prior.agentId !== who.agentId || prior.config.requestHash !== requestHash) {
      throw conflict("This Idempotency-Key was already used with a different request body.");
    }
    if (prior.status !== "creating") return { runId, status: prior.status, replayed: true };
    // The first create was cut short (or is still under way): finishing its setup is idempotent.
    await setUpRun(env, who, runId, body.datasetId, prior.config as unknown as RunConfig, sets);
    return { runId, status: "queued" as RunStatus, replayed: true };
  }
  await setUpRun(env, who, runId, body.datasetId, config, sets);
  return { runId, status: "queued" as RunStatus, replayed: false };
}

/**
 * Starts queued runs of a tenant while fewer than the limit are running. The status flip is one
 * conditional UPDATE, so two admissions at once cannot both take the last slot.
 */
export async function admitQueuedRuns(env: Env, tenantId: string): Promise<string[]> {
  const limit = variables(env).PRACTICE_MAX_RUNS_PER_TENANT;
  const started: string[] = [];
  for (;;) {
    const next = await db(env)
      .select({ runId: practiceRuns.runId })
      .from(practiceRuns)
      .where(and(eq(practiceRuns.tenantId, tenantId), eq(practiceRuns.status, "queued")))
      .orderBy(asc(practiceRuns.createdAt), asc(practiceRuns.runId))
      .get();
    if (!next) return started;
    const r = await env.DB.prepare(
      `UPDATE practice_runs SET status = 'running', updated_at = ?1
       WHERE run_id = ?2 AND status = 'queued'
         AND (SELECT COUNT(*) FROM practice_runs WHERE tenant_id = ?3 AND status = 'running') < ?4`,
    )
      .bind(Date.now(), next.runId, tenantId, limit)
      .run();
    if (r.meta.changes === 0) return started;
    try {
      if (!(await practiceRunObject(env, next.runId).start())) throw new Error("the run was never set up");
      started.push(next.runId);
    } catch (err) {
      await syncRunRow(env, next.runId, { status: "failed", summary: {}, error: `starting the run failed: ${String(err)}` });
    }
  }
}

/** Mirrors the run's status, summary and error into its D1 row, for listing. */
export async function syncRunRow(env: Env, runId: string, fields: RunRowFields) {
  await db(env)
    .update(practiceRuns)
    .set({ status: fields.status, summary: fields.summary, error: fields.error, updatedAt: Date.now() })
    .where(eq(practiceRuns.runId, runId))
    .run();
}

/** How long a run may stay `creating` before the cron deems its setup abandoned. */
const CREATING_TIMEOUT_MS = 15 * 60_000;

/** The cron's safety net for setups cut short and never retried: such runs fail instead of blocking their agent. */
export async function failAbandonedSetups(env: Env, at: number): Promise<number> {
  const r = await env.DB.prepare(
    "UPDATE practice_runs SET status = 'failed', error = 'setting up the run did not finish', updated_at = ?1 WHERE status = 'creating' AND updated_at < ?2",
  )
    .bind(at, at - CREATING_TIMEOUT_MS)
    .run();
  return r.meta.changes ?? 0;
}

/** Promotes a chosen library of a finished run as one library version whose reason carries the evidence. */
export async function promoteRun(
  env: Env,
  run: RunFacts,
  start: RunExperience[],
  final: RunExperience[],
  why: string,
): Promise<Omit<Promotion, "epoch">> {
  const none = (reason: string): Omit<Promotion, "epoch"> => ({ promoted: false, reason, version: null, applied: 0, skipped: [] });
  const how =
    run.finishing === "budget-exhausted"
      ? "stopped by its budget, keeping what its finished steps learned"
      : run.stoppedEarly
        ? `stopped early: ${run.stoppedEarly}`
        : "completed";
  const inHindsight = final.filter((e) => originOf(e) === "hindsight").length;
  const hindsight = inHindsight ? `; ${inHindsight} of its lessons learned in hindsight from tasks every attempt failed` : "";
  const reason = `practice run ${run.runId} (${how}): ${run.config.epochs} epoch(s) on dataset ${run.datasetId}; ${why}${hindsight}`;
  let value;
  try {
    ({ value } = await practisedMemory(env, run, run.config).promotePractice({
      runId: run.runId,
      ...(run.agentIncarnation ? { incarnation: run.agentIncarnation } : {}),
      reason,
      start: start.map((e) => ({ id: e.id, text: e.text, ...(e.when ? { when: e.when } : {}) })),
      final: final.map((e) => ({ id: e.id, text: e.text, origin: originOf(e), ...(e.when ? { when: e.when } : {}) })),
    }));
  } catch (err) {
    // The run's alarm repeats a promotion that threw, every 30 s until it returns: one the agent
    // refuses for good (it was deleted meanwhile, the write is invalid) ends the run unpromoted.
    // A configuration problem (503) is left to be fixed and retried.
    if (isRequestFault(err) && !isRetryable(err)) return none(unpromotedReason(`the agent refused the promotion: ${err.message}`, why));
    throw err;
  }
  if (value.version === null) {
    return {
      ...none(
        unpromotedReason(
          value.skipped.length ? "every change of the run was skipped (see skipped)" : "the run's library ended as it started",
          why,
        ),
      ),
      skipped: value.skipped,
    };
  }
  // The library version's reason is read out of the run's context, so it names the run and its
  // dataset; the run's own promotion does not repeat them.
  const ended = how === "completed" ? "" : `; the run ${how}`;
  return { promoted: true, reason: `${why}${hindsight}${ended}`, version: value.version, applied: value.applied, skipped: value.skipped };
}

/** The run's D1 row for the caller's tenant and agent; another tenant's run is a 404 like a missing one. */
export async function runRow(env: Env, who: Caller, runId: string) {
  const row = await db(env)
    .select()
    .from(practiceRuns)
    .where(and(eq(practiceRuns.runId, runId), eq(practiceRuns.tenantId, who.tenantId), eq(practiceRuns.agentId, who.agentId)))
    .get();
  if (!row) throw notFound(`Practice run '${runId}' does not exist.`);
  return row;
}

/** Cancels a run with its units and evaluations; 409 once its promotion has begun (it then ends promoted). */
export async function cancelRun(env: Env, who: Caller, runId: string) {
  await runRow(env, who, runId);
  const r = await practiceRunObject(env, runId).cancel();
  if (r.outcome === "promoting")
    throw conflict(`Practice run '${runId}' is being promoted; it ends as promoted and can no longer be cancelled.`);
  return r.view as RunView;
}

/**
 * The cron's safety net: admits queued runs of every tenant, in case the admission after a create
 * or after another run's end did not happen (a crash between the two).
 */
export async function admitAllQueuedRuns(env: Env): Promise<number> {
  const rows = await db(env)
    .selectDistinct({ tenantId: practiceRuns.tenantId })
    .from(practiceRuns)
    .where(eq(practiceRuns.status, "queued"))
    .all();
  let started = 0;
  for (const r of rows) started += (await admitQueuedRuns(env, r.tenantId)).length;
  return started;
}

/** Records a webhook rollout's late result; the run must belong to the key's tenant (and agents). */
export async function resultForRollout(
  env: Env,
  key: { tenantId: string; agentIds: string[] | null },
  ref: RolloutRef,
  answer: RolloutAnswer,
  secret: string | null,
): Promise<"accepted" | "duplicate"> {
  const row = await db(env)
    .select({ agentId: practiceRuns.agentId })
    .from(practiceRuns)
    .where(and(eq(practiceRuns.runId, ref.runId), eq(practiceRuns.tenantId, key.tenantId)))
    .get();
  return recordLateRollout(key, ref, row?.agentId ?? null, practiceRunObject(env, ref.runId), answer, secret);
}
