import { eq } from "drizzle-orm";
import type { Env } from "../../env";
import { db } from "../../db/client";
import { evaluations } from "../../db/schema";
import { datasetSplit } from "../records/dataset-tasks";
import { sha256Hex } from "../../core/api-key";
import type { EvaluationConfig, EvaluationCreate, LibraryRef } from "../../core/evaluation/types";
import { isGroupVerifier } from "../../core/verifiers";
import type { VerifierConfig } from "../../core/verifiers/schema";
import type { FrozenTask } from "../../core/practice/ports";
import { conflict, DomainError, rateLimited, unprocessable } from "../../core/errors";
import { resilientMemory } from "../objects/agent-access";
import { resilientObject } from "../objects/object-stub";
import type { Evaluation } from "../../../durable-objects/evaluation";
import { EVALUATION_CONTRACT } from "../../../durable-objects/evaluation/contract";
import { practiceRunObject, runRow } from "./runs";
import { checkWebhookTargets, requireLlm, resolveVerifier } from "./unit-checks";
import { variables } from "../../config";

/**
 * Setting up an evaluation: its tasks and scoring checked, the library it injects resolved, its
 * D1 row inserted within the tenant's cap, its Durable Object created and started. The operations
 * in ./evaluation.ts put these together.
 */

/** The evaluation's Durable Object as the platform calls it, by its contract (durable-objects/evaluation/contract.ts). */
export const evaluationObject = (env: Env, evaluationId: string) =>
  resilientObject<Evaluation>(EVALUATION_CONTRACT, () => env.EVALUATION.getByName(evaluationId), {
    outcomes: false,
    faults: { subject: "This evaluation", unrepeated: "look at the evaluation before retrying" },
  });

/** Tasks go to the evaluation's Durable Object in pieces that stay well under the RPC message limit. */
const TASK_CHUNK = 500;

export interface Caller {
  tenantId: string;
  agentId: string;
}

export type Settings = Omit<EvaluationCreate, "library">;

/**
 * Everything about the tasks and their scoring that could be wrong is found here, before anything
 * is stored. A practice run's own evaluations skip the checks of the policy's and verifier's
 * endpoints: the run passed them when it was created, and they are the run's.
 */
export async function prepareTasks(env: Env, who: Caller, body: Settings, checkEndpoints = true) {
  const { ds, tasks } = await datasetSplit(env, who.tenantId, body.datasetId, body.split);
  if (tasks.length === 0) {
    throw unprocessable(`Dataset '${ds.id}' has no ${body.split} tasks to evaluate on.`, [
      { path: "split", message: `No ${body.split} tasks` },
    ]);
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
export function frozenTasks(settings: Settings, tasks: FrozenTask[]) {
  const verifier = resolveVerifier(settings.verifier, null, tasks, `${settings.split} tasks`);
  checkSamples(verifier, settings.samples);
  return { tasks, verifier, seed: settings.seed! };
}

/** A reference to something that does not exist is a 422 on the field that names it, like an unknown dataset. */
async function orUnprocessable<T>(call: () => Promise<T>, path: string): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof DomainError && err.kind === "not-found") throw unprocessable(err.message, [{ path, message: "Does not exist" }]);
    throw err;
  }
}

/** The experiences an evaluation injects, in library order, and the agent's library version they are. */
export async function resolveLibrary(env: Env, who: Caller, ref: LibraryRef | null, path: string) {
  if (ref === null) {
    const exported = await resilientMemory(env, who.tenantId, who.agentId).exportLibrary();
    return {
      library: exported.experiences.filter((e) => e.status === "active").map((e) => ({ id: e.id, text: e.text })),
      libraryVersion: exported.libraryVersion,
    };
  }
  if ("version" in ref) {
    if (ref.version === 0) return { library: [], libraryVersion: 0 };
    // An old version's lessons are injected as they stood, except those held or removed from quarantine since.
    const lib = await orUnprocessable(
      () => resilientMemory(env, who.tenantId, who.agentId).evaluationLibrary({ n: ref.version }),
      `${path}.version`,
    );
    return { library: lib.experiences, libraryVersion: ref.version };
  }
  await orUnprocessable(() => runRow(env, who, ref.runId), `${path}.runId`);
  const lib = await practiceRunObject(env, ref.runId).library();
  return { library: lib.items.map((e) => ({ id: e.id, text: e.text })), libraryVersion: null };
}

/** With an Idempotency-Key the id is derived from it, so a retried create finds the first one. */
export async function newId(prefix: string, who: Caller, idempotencyKey?: string) {
  const tail = idempotencyKey
    ? (await sha256Hex(`${prefix}|${who.tenantId}|${who.agentId}|${idempotencyKey}`)).slice(0, 24)
    : crypto.randomUUID().replace(/-/g, "").slice(0, 24);
  return `${prefix}_${tail}`;
}

export interface Prepared {
  evaluationId: string;
  config: EvaluationConfig;
  library: { id: string; text: string }[];
  tasks: FrozenTask[];
}

export const rowOf = (who: Caller, p: Prepared, requestHash: string) => ({
  evaluationId: p.evaluationId,
  tenantId: who.tenantId,
  agentId: who.agentId,
  datasetId: p.config.datasetId,
  status: "queued" as const,
  config: { ...p.config, requestHash },
});

/** Sets up the evaluation's Durable Object and starts it; a failure is recorded so the row does not stay queued. */
export async function launch(env: Env, who: Caller, p: Prepared) {
  const stub = evaluationObject(env, p.evaluationId);
  const input = {
    evaluationId: p.evaluationId,
    tenantId: who.tenantId,
    agentId: who.agentId,
    datasetId: p.config.datasetId,
    config: p.config,
    library: p.library,
  };
  try {
    await stub.init({ input, tasks: p.tasks.slice(0, TASK_CHUNK) });
    for (let i = TASK_CHUNK; i < p.tasks.length; i += TASK_CHUNK) await stub.addTasks({ tasks: p.tasks.slice(i, i + TASK_CHUNK) });
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

export function replayOrConflict(
  prior: { tenantId: string; agentId: string; config: Record<string, unknown> } | undefined,
  who: Caller,
  requestHash: string,
) {
  if (!prior || prior.tenantId !== who.tenantId || prior.agentId !== who.agentId || prior.config.requestHash !== requestHash) {
    throw conflict("This Idempotency-Key was already used with a different request body.");
  }
}

const tooManyEvaluations = (cap: number) =>
  rateLimited(`At most ${cap} evaluations of a tenant may be queued or running at once; try again when one has finished.`, 60);

/**
 * Inserts evaluation rows, all or none, only while the tenant's queued and running evaluations stay
 * within the cap: each row's statement checks the count in the same D1 transaction (a batch), so
 * concurrent creates cannot both take the last slot. Returns the ids inserted.
 */
export async function insertWithinCap(env: Env, rows: ReturnType<typeof rowOf>[]): Promise<string[]> {
  const cap = variables(env).EVALUATION_MAX_PER_TENANT;
  const stmts = rows.map((r, i) =>
    env.DB.prepare(
      `INSERT INTO evaluations (evaluation_id, tenant_id, agent_id, dataset_id, status, config)
       SELECT ?1, ?2, ?3, ?4, 'queued', ?5
       WHERE (SELECT COUNT(*) FROM evaluations WHERE tenant_id = ?2 AND status IN ('queued', 'running')) + ?6 <= ?7
         AND (?8 IS NULL OR EXISTS (SELECT 1 FROM evaluations WHERE evaluation_id = ?8))
       ON CONFLICT DO NOTHING RETURNING evaluation_id AS id`,
    ).bind(
      r.evaluationId,
      r.tenantId,
      r.agentId,
      r.datasetId,
      JSON.stringify(r.config),
      rows.length - i,
      cap,
      i === 0 ? null : rows[i - 1]!.evaluationId,
    ),
  );
  const results = await env.DB.batch<{ id: string }>(stmts);
  const ids = results.flatMap((r) => r.results.map((x) => x.id));
  if (ids.length === 0) {
    const prior = await db(env)
      .select({ id: evaluations.evaluationId })
      .from(evaluations)
      .where(eq(evaluations.evaluationId, rows[0]!.evaluationId))
      .get();
    if (!prior) throw tooManyEvaluations(cap);
  }
  return ids;
}
