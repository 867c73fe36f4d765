import { and, asc, count, eq, isNotNull, lte, or } from "drizzle-orm";
import type { Env } from "../env";
import { db } from "../db/client";
import { practiceSchedules } from "../db/schema";
import { nextDue, parseEvery } from "../core/schedule";
import { RunCreateSchema } from "../core/practice/run-types";
import type { RunOptions, Schedule, ScheduleFire, SchedulePut } from "../core/practice/schedule-types";
import { DomainError, notFound, outcome, unprocessable } from "../core/errors";
import { createLogger } from "../core/logger";
import { requireSystem } from "../core/principal";
import { LlmLedger } from "../llm/ledger";
import { createRun, prepare } from "../platform/practice/runs";
import type { Caller, Deps } from "../platform/deps";
import { agentOwner } from "../platform/objects/agent-access";
import { requireLibraryWrite } from "../platform/objects/lesson-target";
import { recordAudit } from "../platform/records/audit";
import { variables } from "../config";
import { withDatasetId } from "../platform/records/dataset-ref";

interface Owner {
  tenantId: string;
  agentId: string;
}

type Row = typeof practiceSchedules.$inferSelect;

const MAX_SCHEDULES_PER_AGENT = 50;
/** Fires handled by one cron invocation; the rest stay due for the next one. */
const FIRES_PER_CRON = 200;
/**
 * A claimed fire still unrecorded this long after its claim died with its cron invocation (one fire
 * takes seconds); the cron runs every 5 minutes, so the next one finishes it.
 */
const CLAIM_LEASE_MS = 4 * 60_000;

const present = (r: Row): Schedule => ({
  name: r.name,
  every: r.every,
  datasetId: r.datasetId,
  run: r.run as RunOptions,
  enabled: r.enabled,
  nextDueAt: r.enabled ? r.nextDue : null,
  lastRun: r.lastRun ?? null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const own = (who: Owner, name: string) =>
  and(eq(practiceSchedules.tenantId, who.tenantId), eq(practiceSchedules.agentId, who.agentId), eq(practiceSchedules.name, name));

/** The first due time after `after`; `every` was validated when the schedule was stored. */
function dueAfter(every: string, after: number): number {
  const parsed = parseEvery(every);
  const next = parsed.ok ? nextDue(parsed.value, after) : null;
  if (next === null) throw new Error(`schedule expression '${every}' has no next due time`);
  return next;
}

interface ScheduleAt {
  agentId: string;
  name: string;
}

/**
 * Creates or replaces a schedule. The run it would start is checked now as a run request would be,
 * so a schedule that could never start is refused instead of skipping at every fire. The next due
 * time stays when the timing is unchanged; otherwise it counts from now, so re-enabling a schedule
 * never fires for a slot that passed while it was off.
 */
export const putPracticeSchedule = (deps: Deps, caller: Caller, { agentId, name, schedule }: ScheduleAt & { schedule: SchedulePut }) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, agentId, "write");
    const body = await withDatasetId(deps.env, who.tenantId, schedule);
    if (body.run.libraryId) await requireLibraryWrite(deps, caller, body.run.libraryId, "write");
    const now = Date.now();
    await prepare(deps.env, who, { ...body.run, datasetId: body.datasetId });
    const d = db(deps.env);
    const existing = await d.select().from(practiceSchedules).where(own(who, name)).get();
    if (!existing) {
      const n = await d
        .select({ n: count() })
        .from(practiceSchedules)
        .where(and(eq(practiceSchedules.tenantId, who.tenantId), eq(practiceSchedules.agentId, who.agentId)))
        .get();
      if ((n?.n ?? 0) >= MAX_SCHEDULES_PER_AGENT)
        throw unprocessable(`An agent has at most ${MAX_SCHEDULES_PER_AGENT} practice schedules.`);
    }
    const keepDue = existing && existing.enabled && body.enabled && existing.every === body.every;
    const nextDueAt = keepDue ? existing.nextDue : dueAfter(body.every, now);
    const fields = {
      every: body.every,
      datasetId: body.datasetId,
      run: body.run,
      enabled: body.enabled,
      nextDue: nextDueAt,
      updatedAt: now,
    };
    const row = await d
      .insert(practiceSchedules)
      .values({ tenantId: who.tenantId, agentId: who.agentId, name, ...fields, createdAt: now })
      .onConflictDoUpdate({ target: [practiceSchedules.tenantId, practiceSchedules.agentId, practiceSchedules.name], set: fields })
      .returning()
      .get();
    const action = existing ? "schedule.update" : "schedule.create";
    await recordAudit(deps, caller, { tenantId: who.tenantId, action, target: `${agentId}/${name}`, detail: { every: body.every } });
    return { schedule: present(row), created: !existing };
  });

export const getPracticeSchedule = (deps: Deps, caller: Caller, { agentId, name }: ScheduleAt) =>
  outcome(async () => {
    const row = await db(deps.env)
      .select()
      .from(practiceSchedules)
      .where(own(await agentOwner(deps, caller, agentId, "read"), name))
      .get();
    if (!row) throw notFound(`Practice schedule '${name}' does not exist.`);
    return present(row);
  });

export const listPracticeSchedules = (deps: Deps, caller: Caller, { agentId }: { agentId: string }) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, agentId, "read");
    const rows = await db(deps.env)
      .select()
      .from(practiceSchedules)
      .where(and(eq(practiceSchedules.tenantId, who.tenantId), eq(practiceSchedules.agentId, who.agentId)))
      .orderBy(asc(practiceSchedules.name))
      .all();
    return { items: rows.map(present) };
  });

export const deletePracticeSchedule = (deps: Deps, caller: Caller, { agentId, name }: ScheduleAt) =>
  outcome(async () => {
    const who = await agentOwner(deps, caller, agentId, "write");
    const gone = await db(deps.env).delete(practiceSchedules).where(own(who, name)).returning({ name: practiceSchedules.name }).get();
    if (!gone) throw notFound(`Practice schedule '${name}' does not exist.`);
    await recordAudit(deps, caller, { tenantId: who.tenantId, action: "schedule.delete", target: `${agentId}/${name}` });
    return { name, deleted: true as const };
  });

const key = (r: Row) => [r.tenantId, r.agentId, r.name] as const;

/**
 * Claims the schedule's current due time: one conditional UPDATE moves `next_due` past `at` (one
 * fire for however many slots were missed) and records the claim as pending. Of two crons that
 * race for the same due time, exactly one changes the row.
 */
async function claimDue(env: Env, r: Row, at: number): Promise<number | null> {
  const res = await env.DB.prepare(
    `UPDATE practice_schedules SET next_due = ?4, pending_due = ?5, pending_at = ?6, updated_at = ?6
     WHERE tenant_id = ?1 AND agent_id = ?2 AND name = ?3 AND enabled = 1 AND next_due = ?5`,
  )
    .bind(...key(r), dueAfter(r.every, Math.max(at, r.nextDue)), r.nextDue, at)
    .run();
  return res.meta.changes === 1 ? r.nextDue : null;
}

/** Takes over a pending fire whose claimer died; one cron wins it, like a claim. */
async function takeOverPending(env: Env, r: Row, at: number): Promise<number | null> {
  const res = await env.DB.prepare(
    `UPDATE practice_schedules SET pending_at = ?6, updated_at = ?6
     WHERE tenant_id = ?1 AND agent_id = ?2 AND name = ?3 AND pending_due = ?4 AND pending_at = ?5`,
  )
    .bind(...key(r), r.pendingDue, r.pendingAt, at)
    .run();
  return res.meta.changes === 1 ? r.pendingDue : null;
}

/**
 * Starts the run of one claimed due time through the same path as POST …/practice-runs. The
 * idempotency key is the schedule and due time, so a fire finished after a crash finds the run the
 * first attempt created instead of starting another. A refusal (budget used up, another run of the
 * agent still going, the dataset gone) is recorded as a skip; an unexpected failure leaves the fire
 * pending for the next cron.
 */
async function fire(env: Env, r: Row, dueAt: number, at: number): Promise<ScheduleFire> {
  const who = { tenantId: r.tenantId, agentId: r.agentId };
  let outcome: ScheduleFire;
  const body = RunCreateSchema.safeParse({ ...r.run, datasetId: r.datasetId });
  if (!body.success) {
    outcome = {
      at,
      dueAt,
      outcome: "skipped",
      reason: `the stored run options are no longer valid: ${body.error.issues[0]?.message ?? "invalid"}`,
    };
  } else {
    try {
      await new LlmLedger(env).assertWithinBudget(r.tenantId);
      const run = await createRun(env, who, body.data, `schedule:${r.name}:${dueAt}`, { exclusive: true });
      outcome = { at, dueAt, outcome: "started", runId: run.runId };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      outcome = { at, dueAt, outcome: "skipped", reason: err.message };
    }
  }
  await db(env)
    .update(practiceSchedules)
    .set({ pendingDue: null, pendingAt: null, lastRun: outcome, updatedAt: at })
    .where(and(own(who, r.name), eq(practiceSchedules.pendingDue, dueAt)))
    .run();
  return outcome;
}

/**
 * The cron's part: fires every due schedule once per due time, and finishes fires whose cron died
 * after claiming them. Returns how many runs it started.
 */
export const runDueSchedules = (deps: Pick<Deps, "env">, caller: Caller, input: { at: number }) =>
  outcome(async () => {
    requireSystem(caller);
    return fireDueSchedules(deps.env, input.at);
  });

async function fireDueSchedules(env: Env, at: number): Promise<number> {
  const log = createLogger({ task: "practice-schedules" }, variables(env).LOG_LEVEL);
  const rows = await db(env)
    .select()
    .from(practiceSchedules)
    .where(
      or(
        and(eq(practiceSchedules.enabled, true), lte(practiceSchedules.nextDue, at)),
        and(isNotNull(practiceSchedules.pendingDue), lte(practiceSchedules.pendingAt, at - CLAIM_LEASE_MS)),
      ),
    )
    .orderBy(asc(practiceSchedules.nextDue))
    .limit(FIRES_PER_CRON)
    .all();
  let started = 0;
  for (const r of rows) {
    const stale = r.pendingDue !== null && r.pendingAt !== null && r.pendingAt <= at - CLAIM_LEASE_MS;
    const dueAt = stale ? await takeOverPending(env, r, at) : await claimDue(env, r, at);
    if (dueAt === null) continue;
    try {
      const outcome = await fire(env, r, dueAt, at);
      if (outcome.outcome === "started") started++;
      log.info("practice schedule fired", { tenantId: r.tenantId, agentId: r.agentId, name: r.name, ...outcome });
    } catch (err) {
      log.error("practice schedule fire failed; the next cron retries it", {
        tenantId: r.tenantId,
        agentId: r.agentId,
        name: r.name,
        dueAt,
        err: String(err),
      });
    }
  }
  return started;
}
