import { recordLateRollout, type RolloutRef } from "./late-rollout";
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { db } from "../db/client";
import { olderThan } from "../db/keyset";
import { datasets, datasetTasks, evaluationComparisons, evaluations } from "../db/schema";
import { sha256Hex } from "../core/api-key";
import { pairedBootstrap, winnerOf } from "../core/evaluation/stats";
import {
  type CompareCreate,
  type ComparisonView,
  type EvaluationConfig,
  type EvaluationCreate,
  type EvaluationStatus,
  type EvaluationView,
  type LibraryRef,
} from "../core/evaluation/types";
import { isGroupVerifier } from "../core/verifiers";
import type { VerifierConfig } from "../core/verifiers/schema";
import type { RolloutAnswer } from "../core/practice/run-types";
import { conflict, notFound, ProblemError, unprocessable } from "../core/problem";
import { runUnit, type UnitPurposes } from "../practice/run-unit";
import { callMemory, memoryStub } from "./agent-memory";
import { practiceStub, runRow } from "./practice";
import { checkWebhookTargets, requireLlm, resolveVerifier } from "./unit-checks";
import type { EvaluationTask } from "../../durable-objects/evaluation/machine";
import type { EvalRow, RunRow } from "../../durable-objects/practice-run/store";
import type { EvaluationOutcome } from "../../durable-objects/practice-run/evaluations";
import type { RunConfig } from "../core/practice/run-types";
import type { RunExperience } from "../core/practice/plan";

export const evaluationStub = (env: Env, evaluationId: string) => env.EVALUATION.getByName(evaluationId);

const EVALUATION_PURPOSES: UnitPurposes = { rollout: "evaluation-rollout", judge: "evaluation-judge" };

export const runEvaluationUnit = (msg: { evaluationId: string; key: string }, env: Env, log: Logger, delivery: { attempts: number }) =>
  runUnit(evaluationStub(env, msg.evaluationId), msg.key, env, log, delivery, EVALUATION_PURPOSES);

/** Tasks go to the evaluation's Durable Object in pieces that stay well under the RPC message limit. */
const TASK_CHUNK = 500;

interface Caller {
  tenantId: string;
  agentId: string;
}

type Settings = Omit<EvaluationCreate, "library">;

/**
 * Everything about the tasks and their scoring that could be wrong is found here, before anything
 * is stored. A practice run's own evaluations skip the checks of the policy's and verifier's
 * endpoints: the run passed them when it was created, and they are the run's.
 */
async function prepareTasks(env: Env, who: Caller, body: Settings, checkEndpoints = true) {
  const ds = await db(env)
    .select()
    .from(datasets)
    .where(and(eq(datasets.id, body.datasetId), eq(datasets.tenantId, who.tenantId)))
    .get();
  if (!ds) throw unprocessable(`Dataset '${body.datasetId}' does not exist.`, [{ path: "datasetId", message: "No such dataset" }]);
  const tasks: EvaluationTask[] = await db(env)
    .select({ taskId: datasetTasks.taskId, task: datasetTasks.task, groundTruth: datasetTasks.groundTruth })
    .from(datasetTasks)
    .where(and(eq(datasetTasks.datasetId, ds.id), eq(datasetTasks.split, body.split)))
    .orderBy(asc(datasetTasks.seq))
    .all();
  if (tasks.length === 0) {
    throw unprocessable(`Dataset '${ds.id}' has no ${body.split} tasks to evaluate on.`, [{ path: "split", message: `No ${body.split} tasks` }]);
  }
  const verifier = resolveVerifier(body.verifier, ds.verifier, tasks, `${body.split} tasks`);
  checkSamples(verifier, body.samples);
  if (checkEndpoints) {
    await checkWebhookTargets(env, who.tenantId, body.policy, verifier);
    if (body.policy.kind === "llm" || verifier.kind === "llm-judge") requireLlm(env);
  }
  return { tasks, verifier, seed: body.seed ?? crypto.getRandomValues(new Uint32Array(1))[0]! % 2 ** 31 };
}

function checkSamples(verifier: VerifierConfig, samples: number) {
  if (isGroupVerifier(verifier) && samples < 2) {
    throw unprocessable("The majority verifier scores a task's samples against each other, so it needs samples ≥ 2.", [
      { path: "samples", message: "The majority verifier needs at least 2 samples" },
    ]);
  }
}

/** A practice run's own held-out tasks, checked against its verifier like a dataset's would be. */
function frozenTasks(settings: Settings, tasks: EvaluationTask[]) {
  const verifier = resolveVerifier(settings.verifier, null, tasks, `${settings.split} tasks`);
  checkSamples(verifier, settings.samples);
  return { tasks, verifier, seed: settings.seed! };
}

/** A reference to something that does not exist is a 422 on the field that names it, like an unknown dataset. */
async function orUnprocessable<T>(call: () => Promise<T>, path: string): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) throw unprocessable(err.message, [{ path, message: "Does not exist" }]);
    throw err;
  }
}

/** The experiences an evaluation injects, in library order, and the agent's library version they are. */
async function resolveLibrary(env: Env, who: Caller, ref: LibraryRef | null, path: string) {
  if (ref === null) {
    const exported = await callMemory(() => memoryStub(env, who.tenantId, who.agentId).exportLibrary());
    return { library: exported.experiences.filter((e) => e.status === "active").map((e) => ({ id: e.id, text: e.text })), libraryVersion: exported.libraryVersion };
  }
  if ("version" in ref) {
    if (ref.version === 0) return { library: [], libraryVersion: 0 };
    const detail = await orUnprocessable(() => callMemory(() => memoryStub(env, who.tenantId, who.agentId).libraryVersion(ref.version)), `${path}.version`);
    return { library: detail.experiences.filter((e) => e.status === "active").map((e) => ({ id: e.id, text: e.text })), libraryVersion: ref.version };
  }
  await orUnprocessable(() => runRow(env, who, ref.runId), `${path}.runId`);
  const lib = await practiceStub(env, ref.runId).library();
  return { library: lib.items.map((e) => ({ id: e.id, text: e.text })), libraryVersion: null };
}

/** With an Idempotency-Key the id is derived from it, so a retried create finds the first one. */
async function newId(prefix: string, who: Caller, idempotencyKey?: string) {
  const tail = idempotencyKey ? (await sha256Hex(`${prefix}|${who.tenantId}|${who.agentId}|${idempotencyKey}`)).slice(0, 24) : crypto.randomUUID().replace(/-/g, "").slice(0, 24);
  return `${prefix}_${tail}`;
}

interface Prepared {
  evaluationId: string;
  config: EvaluationConfig;
  library: { id: string; text: string }[];
  tasks: EvaluationTask[];
}

const rowOf = (who: Caller, p: Prepared, requestHash: string) => ({
  evaluationId: p.evaluationId,
  tenantId: who.tenantId,
  agentId: who.agentId,
  datasetId: p.config.datasetId,
  status: "queued" as const,
  config: { ...p.config, requestHash },
});

/** Sets up the evaluation's Durable Object and starts it; a failure is recorded so the row does not stay queued. */
async function launch(env: Env, who: Caller, p: Prepared) {
  const stub = evaluationStub(env, p.evaluationId);
  const input = { evaluationId: p.evaluationId, tenantId: who.tenantId, agentId: who.agentId, datasetId: p.config.datasetId, config: p.config, library: p.library };
  try {
    await stub.init(input, p.tasks.slice(0, TASK_CHUNK));
    for (let i = TASK_CHUNK; i < p.tasks.length; i += TASK_CHUNK) await stub.addTasks(p.tasks.slice(i, i + TASK_CHUNK));
    await stub.start();
  } catch (err) {
    await db(env)
      .update(evaluations)
      .set({ status: "failed", error: `setting up the evaluation failed: ${String(err)}`, updatedAt: Date.now() })
      .where(eq(evaluations.evaluationId, p.evaluationId))
      .run();
    throw err;
  }
}

function replayOrConflict(prior: { tenantId: string; agentId: string; config: Record<string, unknown> } | undefined, who: Caller, requestHash: string) {
  if (!prior || prior.tenantId !== who.tenantId || prior.agentId !== who.agentId || prior.config.requestHash !== requestHash) {
    throw conflict("This Idempotency-Key was already used with a different request body.");
  }
}

/** Evaluations of one tenant queued or running at once, unless EVALUATION_MAX_PER_TENANT says otherwise. */
const DEFAULT_MAX_EVALUATIONS_PER_TENANT = 8;

const tooManyEvaluations = (cap: number) =>
  new ProblemError(429, "rate-limited", `At most ${cap} evaluations of a tenant may be queued or running at once; try again when one has finished.`, {
    headers: { "retry-after": "60" },
  });

/**
 * Inserts evaluation rows, all or none, only while the tenant's queued and running evaluations stay
 * within the cap: each row's statement checks the count in the same D1 transaction (a batch), so
 * concurrent creates cannot both take the last slot. Returns the ids inserted.
 */
async function insertWithinCap(env: Env, rows: ReturnType<typeof rowOf>[]): Promise<string[]> {
  const cap = Number(env.EVALUATION_MAX_PER_TENANT ?? DEFAULT_MAX_EVALUATIONS_PER_TENANT) || DEFAULT_MAX_EVALUATIONS_PER_TENANT;
  const stmts = rows.map((r, i) =>
    env.DB.prepare(
      `INSERT INTO evaluations (evaluation_id, tenant_id, agent_id, dataset_id, status, config)
       SELECT ?1, ?2, ?3, ?4, 'queued', ?5
       WHERE (SELECT COUNT(*) FROM evaluations WHERE tenant_id = ?2 AND status IN ('queued', 'running')) + ?6 <= ?7
         AND (?8 IS NULL OR EXISTS (SELECT 1 FROM evaluations WHERE evaluation_id = ?8))
       ON CONFLICT DO NOTHING RETURNING evaluation_id AS id`,
    ).bind(r.evaluationId, r.tenantId, r.agentId, r.datasetId, JSON.stringify(r.config), rows.length - i, cap, i === 0 ? null : rows[i - 1]!.evaluationId),
  );
  const results = await env.DB.batch<{ id: string }>(stmts);
  const ids = results.flatMap((r) => r.results.map((x) => x.id));
  if (ids.length === 0) {
    const prior = await db(env).select({ id: evaluations.evaluationId }).from(evaluations).where(eq(evaluations.evaluationId, rows[0]!.evaluationId)).get();
    if (!prior) throw tooManyEvaluations(cap);
  }
  return ids;
}

export async function createEvaluation(env: Env, who: Caller, body: EvaluationCreate, idempotencyKey?: string) {
  const { tasks, verifier, seed } = await prepareTasks(env, who, body);
  const library = body.library ?? null;
  const resolved = await resolveLibrary(env, who, library, "library");
  const p: Prepared = {
    evaluationId: await newId("ev", who, idempotencyKey),
    config: { ...body, library, verifier, seed, libraryVersion: resolved.libraryVersion },
    library: resolved.library,
    tasks,
  };
  const requestHash = await sha256Hex(JSON.stringify(body));
  const inserted = await insertWithinCap(env, [rowOf(who, p, requestHash)]);
  if (inserted.length === 0) {
    replayOrConflict(await db(env).select().from(evaluations).where(eq(evaluations.evaluationId, p.evaluationId)).get(), who, requestHash);
    return { evaluationId: p.evaluationId, replayed: true };
  }
  await launch(env, who, p);
  return { evaluationId: p.evaluationId, replayed: false };
}

/**
 * Starts two evaluations of the same tasks with the same samples and seed (so each task's
 * sampling seeds match on both sides) and records them as one comparison to poll.
 */
export async function createComparison(env: Env, who: Caller, body: CompareCreate, idempotencyKey?: string) {
  const { tasks, verifier, seed } = await prepareTasks(env, who, body);
  const sides = await Promise.all((["a", "b"] as const).map((side) => resolveLibrary(env, who, body[side], side)));
  const comparisonId = await newId("cmp", who, idempotencyKey);
  const requestHash = await sha256Hex(JSON.stringify(body));
  const settings = { datasetId: body.datasetId, split: body.split, samples: body.samples, policy: body.policy, verifier, seed };
  const prepared: Prepared[] = (["a", "b"] as const).map((side, i) => ({
    evaluationId: `ev_${comparisonId.slice(4)}${side}`,
    config: { ...settings, library: body[side], libraryVersion: sides[i]!.libraryVersion },
    library: sides[i]!.library,
    tasks,
  }));
  const d = db(env);
  const created = await d
      .insert(evaluationComparisons)
      .values({
        comparisonId,
        tenantId: who.tenantId,
        agentId: who.agentId,
        datasetId: body.datasetId,
        evaluationA: prepared[0]!.evaluationId,
        evaluationB: prepared[1]!.evaluationId,
        config: { ...settings, a: body.a, b: body.b, requestHash },
      })
      .onConflictDoNothing()
      .returning({ id: evaluationComparisons.comparisonId })
      .all();
  const ids = { comparisonId, evaluations: { a: prepared[0]!.evaluationId, b: prepared[1]!.evaluationId } };
  if (created.length === 0) {
    replayOrConflict(await d.select().from(evaluationComparisons).where(eq(evaluationComparisons.comparisonId, comparisonId)).get(), who, requestHash);
    return { ...ids, replayed: true };
  }
  try {
    await insertWithinCap(env, prepared.map((p) => rowOf(who, p, requestHash)));
  } catch (err) {
    // Without room for both sides the comparison is not created at all.
    await d.delete(evaluationComparisons).where(eq(evaluationComparisons.comparisonId, comparisonId)).run();
    throw err;
  }
  await Promise.all(prepared.map((p) => launch(env, who, p)));
  return { ...ids, replayed: false };
}

/**
 * Starts the held-out evaluation of one of a practice run's libraries, with the run's policy,
 * verifier and seed (the same seed each epoch, so epochs are compared on the same samples) on the
 * held-out tasks frozen in the run when it was created (the same tasks each epoch, whatever
 * happens to the dataset meanwhile). Safe to repeat: the id is fixed by the run and epoch, and
 * every step is idempotent. A problem that retrying cannot fix (a verifier that cannot score the
 * tasks) comes back as the evaluation's failure; anything else throws and the run's alarm tries again.
 */
export async function launchRunEvaluation(env: Env, run: RunRow, cfg: RunConfig, e: EvalRow, frozen: EvaluationTask[]): Promise<EvaluationOutcome | null> {
  const who = { tenantId: run.tenant_id, agentId: run.agent_id };
  const evaluate = cfg.evaluate!;
  const settings: Settings = { datasetId: run.dataset_id, split: evaluate.split, samples: evaluate.samples, policy: cfg.policy, verifier: cfg.verifier, seed: cfg.seed };
  let prepared: Awaited<ReturnType<typeof prepareTasks>>;
  try {
    // Runs created before held-out tasks were frozen with them read the dataset, as they always did.
    prepared = frozen.length ? frozenTasks(settings, frozen) : await prepareTasks(env, who, settings, false);
  } catch (err) {
    if (err instanceof ProblemError && err.status < 500) {
      return { status: "failed", accuracy: null, interval: null, tokens: 0, costUsd: 0, error: err.message };
    }
    throw err;
  }
  const p: Prepared = {
    evaluationId: e.evaluation_id,
    config: { ...settings, library: { runId: run.run_id }, verifier: prepared.verifier, seed: prepared.seed, libraryVersion: null, practice: { runId: run.run_id, epoch: e.epoch } },
    library: (JSON.parse(e.library) as RunExperience[]).map((x) => ({ id: x.id, text: x.text })),
    tasks: prepared.tasks,
  };
  await db(env).insert(evaluations).values(rowOf(who, p, "")).onConflictDoNothing().run();
  await launch(env, who, p);
  return null;
}

/** The evaluation's D1 row for the caller's tenant and agent; another tenant's is a 404 like a missing one. */
async function evaluationRow(env: Env, who: Caller, evaluationId: string) {
  const row = await db(env)
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.evaluationId, evaluationId), eq(evaluations.tenantId, who.tenantId), eq(evaluations.agentId, who.agentId)))
    .get();
  if (!row) throw notFound(`Evaluation '${evaluationId}' does not exist.`);
  return row;
}

async function liveView(env: Env, evaluationId: string): Promise<EvaluationView> {
  // The RPC type widens the interval tuple to an array; the value is the DO's EvaluationView.
  const view = (await evaluationStub(env, evaluationId).view()) as EvaluationView | null;
  if (!view) throw new ProblemError(503, "service-unavailable", `Evaluation '${evaluationId}' is still being created; try again.`);
  return view;
}

export async function evaluationView(env: Env, who: Caller, evaluationId: string) {
  await evaluationRow(env, who, evaluationId);
  return liveView(env, evaluationId);
}

export async function listEvaluations(env: Env, who: Caller, limit: number, after?: { createdAt: number; id: string }) {
  const rows = await db(env)
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.tenantId, who.tenantId), eq(evaluations.agentId, who.agentId), olderThan(evaluations.createdAt, evaluations.evaluationId, after)))
    .orderBy(desc(evaluations.createdAt), desc(evaluations.evaluationId))
    .limit(limit + 1)
    .all();
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

function combinedStatus(a: EvaluationStatus, b: EvaluationStatus): EvaluationStatus {
  if (a === "failed" || b === "failed") return "failed";
  if (a === "completed" && b === "completed") return "completed";
  return a === "queued" && b === "queued" ? "queued" : "running";
}

/** Both sides as they stand and, once both completed, the paired difference over the tasks both scored. */
export async function comparisonView(env: Env, who: Caller, comparisonId: string): Promise<ComparisonView> {
  const row = await db(env)
    .select()
    .from(evaluationComparisons)
    .where(and(eq(evaluationComparisons.comparisonId, comparisonId), eq(evaluationComparisons.tenantId, who.tenantId), eq(evaluationComparisons.agentId, who.agentId)))
    .get();
  if (!row) throw notFound(`Comparison '${comparisonId}' does not exist.`);
  const [a, b] = await Promise.all([liveView(env, row.evaluationA), liveView(env, row.evaluationB)]);
  const status = combinedStatus(a.status, b.status);
  const seed = a.config.seed;
  let paired = null;
  if (status === "completed") {
    const bMeans = new Map(b.tasks.map((t) => [t.taskId, t.meanReward]));
    const both = a.tasks.filter((t) => t.meanReward !== null && typeof bMeans.get(t.taskId) === "number");
    paired = pairedBootstrap(
      both.map((t) => t.meanReward!),
      both.map((t) => bMeans.get(t.taskId)!),
      { seed },
    );
  }
  const side = (v: EvaluationView) => ({ evaluationId: v.evaluationId, library: v.config.library!, status: v.status, accuracy: v.accuracy, interval: v.interval });
  return {
    comparisonId,
    datasetId: row.datasetId,
    status,
    samples: a.config.samples,
    seed,
    a: side(a),
    b: side(b),
    difference: paired?.difference ?? null,
    interval: paired?.interval ?? null,
    winner: paired ? winnerOf(paired) : null,
    tasks: paired ? { won: paired.won, lost: paired.lost, tied: paired.tied } : null,
    error: a.error ?? b.error,
    createdAt: row.createdAt,
  };
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
  return recordLateRollout(key, ref, row?.agentId ?? null, evaluationStub(env, ref.runId), answer, secret);
}

/** Cancels every evaluation of an agent that has not ended (the agent is being deleted); returns how many. */
export async function cancelAgentEvaluations(env: Env, tenantId: string, agentId: string, reason: string): Promise<number> {
  const going = await db(env)
    .select({ evaluationId: evaluations.evaluationId })
    .from(evaluations)
    .where(and(eq(evaluations.tenantId, tenantId), eq(evaluations.agentId, agentId), inArray(evaluations.status, ["queued", "running"])))
    .all();
  for (const { evaluationId } of going) await evaluationStub(env, evaluationId).cancel(reason);
  return going.length;
}
