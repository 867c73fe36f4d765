import { and, desc, eq } from "drizzle-orm";
import { db } from "../db/client";
import { olderThan } from "../db/keyset";
import { practiceRuns } from "../db/schema";
import { cursorField, encodeCursor, pageOf } from "../core/cursor";
import { notFound, outcome, unavailable } from "../core/errors";
import { requireScope, requireSystem } from "../core/principal";
import type { JobMessage } from "../core/job-messages";
import { runPracticeUnit } from "../practice/run-unit";
import { tenantWebhookSecret } from "../platform/records/tenant-secrets";
import type { Curve, RolloutAnswer, RunCreate, RunView } from "../core/practice/run-types";
import { parseRolloutId } from "../core/practice/unit-key";
import type { Caller, Deps } from "../platform/deps";
import { agentOwner } from "../platform/objects/agent-access";
import { requireLibraryWrite } from "../platform/objects/lesson-target";
import {
  admitAllQueuedRuns,
  admitQueuedRuns,
  cancelRun,
  createRun,
  failAbandonedSetups,
  practiceRunObject,
  resultForRollout,
  runRow,
} from "../platform/practice/runs";
import { evaluationRolloutResult, isEvaluationId } from "../platform/practice/evaluations";
import { withDatasetId } from "../platform/records/dataset-ref";

/**
 * Practice runs as every door uses them: start, read, follow and cancel a run of an agent the
 * caller may use, and take a webhook rollout's late result. The run's D1 row is checked first, so
 * another tenant's run is not-found like a missing one; only then is its Durable Object asked.
 */

export interface RunAt {
  agentId: string;
  runId: string;
}

type Json = Record<string, unknown>;

async function runObject(deps: Deps, caller: Caller, at: RunAt) {
  await runRow(deps.env, await agentOwner(deps, caller, at.agentId, "read"), at.runId);
  return practiceRunObject(deps.env, at.runId);
}

/** Creates a run; admission runs after the answer, and the cron retries it should it fail. */
export const startPracticeRun = (deps: Deps, caller: Caller, input: { agentId: string; run: RunCreate; idempotencyKey?: string }) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, input.agentId, "write");
    if (input.run.libraryId) await requireLibraryWrite(deps, caller, input.run.libraryId, "write");
    const r = await createRun(deps.env, who, await withDatasetId(deps.env, who.tenantId, input.run), input.idempotencyKey);
    if (!r.replayed) {
      deps.waitUntil(
        admitQueuedRuns(deps.env, who.tenantId).then(
          () => undefined,
          (err: unknown) => deps.logger.error("practice admission failed", { err: String(err) }),
        ),
      );
    }
    return r;
  });

/** The agent's runs, newest first. */
export const listPracticeRuns = (deps: Deps, caller: Caller, input: { agentId: string; limit: number; cursor?: string }) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, input.agentId, "read");
    const after = cursorField(input.cursor, { c: "number", r: "string" });
    const rows = await db(deps.env)
      .select()
      .from(practiceRuns)
      .where(
        and(
          eq(practiceRuns.tenantId, who.tenantId),
          eq(practiceRuns.agentId, who.agentId),
          olderThan(practiceRuns.createdAt, practiceRuns.runId, after ? { createdAt: after.c, id: after.r } : undefined),
        ),
      )
      .orderBy(desc(practiceRuns.createdAt), desc(practiceRuns.runId))
      .limit(input.limit + 1)
      .all();
    const page = pageOf(rows, input.limit, (last) => ({ c: last.createdAt, r: last.runId }));
    return {
      items: page.items.map((r) => ({
        runId: r.runId,
        datasetId: r.datasetId,
        status: r.status,
        summary: r.summary ?? null,
        error: r.error,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      })),
      nextCursor: page.nextCursor,
    };
  });

/** The run's live view from its Durable Object. */
export const getPracticeRun = (deps: Deps, caller: Caller, at: RunAt) =>
  outcome(async () => {
    const view = await (await runObject(deps, caller, at)).view();
    if (!view) throw unavailable(`Practice run '${at.runId}' is still being created; try again.`);
    // The RPC type widens interval tuples to arrays; the value is the object's RunView.
    return view as RunView;
  });

/** Reads the run's event log from an event id on: the door streams it and the client resumes from the last id. */
export const practiceRunEvents = (deps: Deps, caller: Caller, at: RunAt) =>
  outcome(async () => {
    const run = await runObject(deps, caller, at);
    return { read: (after: number, limit: number) => run.events({ after, limit }) };
  });

export const listPracticeRunSteps = (deps: Deps, caller: Caller, at: RunAt) =>
  outcome(async () => ({ items: (await (await runObject(deps, caller, at)).steps()) as Json[] }));

export const getPracticeRunStep = (deps: Deps, caller: Caller, input: RunAt & { n: number }) =>
  outcome(async () => {
    const step = await (await runObject(deps, caller, input)).stepDetail({ n: input.n });
    if (!step) throw notFound(`Step ${input.n} of run '${input.runId}' has not started.`);
    return step as unknown as Json;
  });

export const listPracticeRunRollouts = (
  deps: Deps,
  caller: Caller,
  input: RunAt & { epoch?: number; step?: number; taskId?: string; limit: number; cursor?: string },
) =>
  outcome(async () => {
    const run = await runObject(deps, caller, input);
    const after = cursorField(input.cursor, { s: "number" })?.s;
    const page = await run.rollouts({ epoch: input.epoch, step: input.step, taskId: input.taskId, limit: input.limit, after });
    return { items: page.items as Json[], nextCursor: page.next === null ? null : encodeCursor({ s: page.next }) };
  });

export const getPracticeRunLibrary = (deps: Deps, caller: Caller, at: RunAt) =>
  outcome(async () => (await (await runObject(deps, caller, at)).library()) as unknown as Json);

export const getPracticeRunCurve = (deps: Deps, caller: Caller, at: RunAt) =>
  outcome(async () => (await (await runObject(deps, caller, at)).curve()) as Curve);

export const cancelPracticeRun = (deps: Deps, caller: Caller, at: RunAt) =>
  outcome(async () => cancelRun(deps.env, await agentOwner(deps, caller, at.agentId, "write"), at.runId));

/** A webhook rollout's late result, for the practice run or evaluation that dispatched it. */
export const submitRolloutResult = (
  deps: Deps,
  caller: Caller,
  input: { rolloutId: string; answer: RolloutAnswer; secret: string | null },
) =>
  outcome(async () => {
    const key = requireScope(caller, "write");
    const ref = parseRolloutId(input.rolloutId);
    if (!ref) throw notFound(`Rollout '${input.rolloutId}' does not exist.`);
    // Evaluations fan rollouts out like practice runs do, so their webhook agents post here too.
    const record = isEvaluationId(ref.runId) ? evaluationRolloutResult : resultForRollout;
    return { rolloutId: input.rolloutId, status: await record(deps.env, key, ref, input.answer, input.secret) };
  });

/** The cron's safety net: queued runs of every tenant are admitted, in case an admission after a create or a run's end was cut short. */
export const admitQueuedPracticeRuns = (deps: Pick<Deps, "env">, caller: Caller) =>
  outcome(async () => {
    requireSystem(caller);
    return admitAllQueuedRuns(deps.env);
  });

/** The cron's safety net: runs whose setup was cut short and never retried fail instead of blocking their agent. */
export const failAbandonedPracticeSetups = (deps: Pick<Deps, "env">, caller: Caller, input: { at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return failAbandonedSetups(deps.env, input.at);
  });

/** `practice.unit`: one unit of a run's work (a rollout, a reflection, a gate); the run's object hands it out. */
export const runPracticeUnitJob = (
  deps: Pick<Deps, "env" | "logger">,
  caller: Caller,
  input: { msg: Extract<JobMessage, { type: "practice.unit" }>; attempts: number },
) =>
  outcome(async () => {
    requireSystem(caller);
    const { env } = deps;
    return runPracticeUnit(practiceRunObject(env, input.msg.runId), input.msg, env, deps.logger, { attempts: input.attempts }, (tenantId) =>
      tenantWebhookSecret(env, tenantId),
    );
  });
