import { and, asc, eq } from "drizzle-orm";
import type { Env } from "../../src/env";
import { db } from "../../src/db/client";
import { practiceRuns } from "../../src/db/schema";
import type { RunStatus } from "../../src/core/practice/run-types";

/**
 * What follows from a run's state changing, done by the PracticeRun Durable Object itself through
 * what it owns (the D1 binding, other runs' Durable Objects), never through a service. Services
 * use the same functions (admission after a create, the cron's safety net).
 */

/** Runs of one tenant that may be running at once; the others wait as `queued`. */
const DEFAULT_MAX_RUNS_PER_TENANT = 4;

/**
 * Starts queued runs of a tenant while fewer than the limit are running. The status flip is one
 * conditional UPDATE, so two admissions at once cannot both take the last slot.
 */
export async function admitQueuedRuns(env: Env, tenantId: string): Promise<string[]> {
  const limit = Number(env.PRACTICE_MAX_RUNS_PER_TENANT ?? DEFAULT_MAX_RUNS_PER_TENANT) || DEFAULT_MAX_RUNS_PER_TENANT;
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
      if (!(await env.PRACTICE_RUN.getByName(next.runId).start())) throw new Error("the run was never set up");
      started.push(next.runId);
    } catch (err) {
      await syncRunRow(env, next.runId, { status: "failed", summary: {}, error: `starting the run failed: ${String(err)}` });
    }
  }
}

/** Mirrors the run's status, summary and error into its D1 row, for listing. */
export async function syncRunRow(env: Env, runId: string, fields: { status: RunStatus; summary: Record<string, unknown>; error: string | null }) {
  await db(env)
    .update(practiceRuns)
    .set({ status: fields.status, summary: fields.summary, error: fields.error, updatedAt: Date.now() })
    .where(eq(practiceRuns.runId, runId))
    .run();
}
