import { and, desc, eq } from "drizzle-orm";
import type { Env } from "../env";
import { db } from "../db/client";
import { olderThan } from "../db/keyset";
import { evaluationComparisons, evaluations } from "../db/schema";
import { sha256Hex } from "../core/api-key";
import { decide, pairSamples, type PairedTask } from "../core/evaluation/decision";
import type { CompareCreate, ComparisonView, EvaluationCreate, EvaluationStatus, EvaluationView } from "../core/evaluation/types";
import { notFound, outcome, unavailable } from "../core/errors";
import { requireSystem } from "../core/principal";
import type { JobMessage } from "../core/job-messages";
import { runEvaluationUnit } from "../platform/practice/evaluations";
import { cursorField, pageOf } from "../core/cursor";
import {
  evaluationObject,
  insertWithinCap,
  launch,
  newId,
  prepareTasks,
  replayOrConflict,
  resolveLibrary,
  rowOf,
  type Caller as Owner,
  type Prepared,
} from "../platform/practice/evaluation-setup";
import type { Caller, Deps } from "../platform/deps";
import { agentOwner } from "../platform/objects/agent-access";
import { withDatasetId } from "../platform/records/dataset-ref";

export const startEvaluation = (
  deps: Deps,
  caller: Caller,
  input: { agentId: string; evaluation: EvaluationCreate; idempotencyKey?: string },
) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, input.agentId, "write");
    return createEvaluation(deps.env, who, await withDatasetId(deps.env, who.tenantId, input.evaluation), input.idempotencyKey);
  });

async function createEvaluation(env: Env, who: Owner, body: EvaluationCreate, idempotencyKey?: string) {
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
export const compareLibraries = (
  deps: Deps,
  caller: Caller,
  input: { agentId: string; comparison: CompareCreate; idempotencyKey?: string },
) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, input.agentId, "write");
    return createComparison(deps.env, who, await withDatasetId(deps.env, who.tenantId, input.comparison), input.idempotencyKey);
  });

async function createComparison(env: Env, who: Owner, body: CompareCreate, idempotencyKey?: string) {
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
    replayOrConflict(
      await d.select().from(evaluationComparisons).where(eq(evaluationComparisons.comparisonId, comparisonId)).get(),
      who,
      requestHash,
    );
    return { ...ids, replayed: true };
  }
  try {
    await insertWithinCap(
      env,
      prepared.map((p) => rowOf(who, p, requestHash)),
    );
  } catch (err) {
    // Without room for both sides the comparison is not created at all.
    await d.delete(evaluationComparisons).where(eq(evaluationComparisons.comparisonId, comparisonId)).run();
    throw err;
  }
  await Promise.all(prepared.map((p) => launch(env, who, p)));
  return { ...ids, replayed: false };
}

/** The evaluation's D1 row for the caller's tenant and agent; another tenant's is a 404 like a missing one. */
async function evaluationRow(env: Env, who: Owner, evaluationId: string) {
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
  const view = (await evaluationObject(env, evaluationId).view()) as EvaluationView | null;
  if (!view) throw unavailable(`Evaluation '${evaluationId}' is still being created; try again.`);
  return view;
}

export const getEvaluation = (deps: Deps, caller: Caller, input: { agentId: string; evaluationId: string }) =>
  outcome(async () => {
    await evaluationRow(deps.env, await agentOwner(deps, caller, input.agentId, "read"), input.evaluationId);
    return liveView(deps.env, input.evaluationId);
  });

/** The agent's evaluations, newest first, with accuracy once completed. */
export const listEvaluations = (deps: Deps, caller: Caller, input: { agentId: string; limit: number; cursor?: string }) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, input.agentId, "read");
    const after = cursorField(input.cursor, { c: "number", e: "string" });
    const rows = await db(deps.env)
      .select()
      .from(evaluations)
      .where(
        and(
          eq(evaluations.tenantId, who.tenantId),
          eq(evaluations.agentId, who.agentId),
          olderThan(evaluations.createdAt, evaluations.evaluationId, after ? { createdAt: after.c, id: after.e } : undefined),
        ),
      )
      .orderBy(desc(evaluations.createdAt), desc(evaluations.evaluationId))
      .limit(input.limit + 1)
      .all();
    const page = pageOf(rows, input.limit, (last) => ({ c: last.createdAt, e: last.evaluationId }));
    return {
      items: page.items.map((r) => ({
        evaluationId: r.evaluationId,
        datasetId: r.datasetId,
        status: r.status,
        accuracy: typeof r.summary?.accuracy === "number" ? r.summary.accuracy : null,
        interval: (r.summary?.interval as [number, number] | undefined) ?? null,
        error: r.error,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      })),
      nextCursor: page.nextCursor,
    };
  });

function combinedStatus(a: EvaluationStatus, b: EvaluationStatus): EvaluationStatus {
  if (a === "failed" || b === "failed") return "failed";
  if (a === "completed" && b === "completed") return "completed";
  return a === "queued" && b === "queued" ? "queued" : "running";
}

/**
 * Both sides as they stand and, once both completed, the paired decision over the tasks and draws
 * both scored: the same rule as the practice gate (src/core/evaluation/decision.ts).
 */
export const getComparison = (deps: Deps, caller: Caller, input: { agentId: string; comparisonId: string }) =>
  outcome(async () => comparisonView(deps.env, await agentOwner(deps, caller, input.agentId, "read"), input.comparisonId));

async function comparisonView(env: Env, who: Owner, comparisonId: string): Promise<ComparisonView> {
  const row = await db(env)
    .select()
    .from(evaluationComparisons)
    .where(
      and(
        eq(evaluationComparisons.comparisonId, comparisonId),
        eq(evaluationComparisons.tenantId, who.tenantId),
        eq(evaluationComparisons.agentId, who.agentId),
      ),
    )
    .get();
  if (!row) throw notFound(`Comparison '${comparisonId}' does not exist.`);
  const [a, b] = await Promise.all([liveView(env, row.evaluationA), liveView(env, row.evaluationB)]);
  const status = combinedStatus(a.status, b.status);
  const seed = a.config.seed;
  let decision = null;
  let winner: "a" | "b" | null = null;
  if (status === "completed") {
    // The gate's rule, both ways round: b is better, a is better, or neither is shown to be.
    const pairs = pairSamples(a.tasks, b.tasks);
    decision = decide(pairs, { minGain: 0, seed });
    const swapped = pairs.map((p): PairedTask => ({ taskId: p.taskId, incumbent: p.candidate, candidate: p.incumbent }));
    winner = decision.verdict === "better" ? "b" : decide(swapped, { minGain: 0, seed }).verdict === "better" ? "a" : null;
  }
  const side = (v: EvaluationView) => ({
    evaluationId: v.evaluationId,
    library: v.config.library!,
    status: v.status,
    accuracy: v.accuracy,
    interval: v.interval,
  });
  return {
    comparisonId,
    datasetId: row.datasetId,
    status,
    samples: a.config.samples,
    seed,
    a: side(a),
    b: side(b),
    difference: decision?.difference ?? null,
    interval: decision?.interval ?? null,
    winner,
    tasks: decision ? { won: decision.won, lost: decision.lost, tied: decision.tied } : null,
    decision,
    error: a.error ?? b.error,
    createdAt: row.createdAt,
  };
}

/** `evaluation.unit`: one unit of an evaluation's work, handed out by its object. */
export const runEvaluationUnitJob = (
  deps: Pick<Deps, "env" | "logger">,
  caller: Caller,
  input: { msg: Extract<JobMessage, { type: "evaluation.unit" }>; attempts: number },
) =>
  outcome(async () => {
    requireSystem(caller);
    return runEvaluationUnit(input.msg, deps.env, deps.logger, { attempts: input.attempts });
  });
