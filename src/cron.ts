import { asc, eq, lt } from "drizzle-orm";
import type { Env } from "./env";
import { agents, auditLog } from "./db/schema";
import { db } from "./db/client";
import { createLogger } from "./core/logger";
import type { JobMessage } from "./core/job-messages";
import { admitAllQueuedRuns, failAbandonedSetups } from "./platform/practice/runs";
import { runDueSchedules } from "./use-cases/schedules";
import { rewriteRecentTombstones } from "./platform/edge/key-store";
import { abandonAfterMs, LlmLedger } from "./llm/ledger";
import { pruneDeliveries } from "./platform/events/delivery";
import { variables } from "./config";

export const CRON_FREQUENT = "*/5 * * * *";
export const CRON_DAILY = "17 3 * * *";

const AUDIT_RETENTION_MS = 180 * 86_400_000;
const SEND_BATCH = 100;

/** Legacy agents asked for their first sweep per cron run; the rest wait for the next run. */
const LEGACY_PER_CRON = 2000;

/**
 * Agents sweep themselves: an agent's Durable Object sets its own alarm when something falls due
 * (an episode's time-to-live, a lesson fading, a record past retention, a sweep after it was used),
 * so the cron wakes no agent. Agents from before that have no alarm yet; each is asked once, through
 * the queue, for a sweep that sets it, and marked, a page at a time (a marked page drops out of the
 * next query, so no cursor is kept).
 */
export async function armLegacyAgents(env: Env, at: number, pageSize = SEND_BATCH): Promise<number> {
  let sent = 0;
  const mark = env.DB.prepare("UPDATE agents SET upkeep_armed = 1 WHERE tenant_id = ? AND agent_id = ?");
  while (sent < LEGACY_PER_CRON) {
    const rows = await db(env)
      .select({ tenantId: agents.tenantId, agentId: agents.agentId })
      .from(agents)
      .where(eq(agents.upkeepArmed, 0))
      .orderBy(asc(agents.tenantId), asc(agents.agentId))
      .limit(pageSize)
      .all();
    if (!rows.length) break;
    const batch: { body: JobMessage }[] = rows.map((r) => ({ body: { type: "agent.sweep", ...r, at } }));
    await env.JOBS.sendBatch(batch);
    // Marked once sent: a crash in between sends the page again, and a second sweep is harmless.
    await env.DB.batch(rows.map((r) => mark.bind(r.tenantId, r.agentId)));
    sent += rows.length;
  }
  return sent;
}

async function pruneAudit(env: Env, at: number) {
  const res = await db(env)
    .delete(auditLog)
    .where(lt(auditLog.at, at - AUDIT_RETENTION_MS))
    .run();
  return res.meta.changes ?? 0;
}

export type CronTasks = Record<string, (env: Env, at: number) => Promise<Record<string, number>>>;

export const cronTasks: CronTasks = {
  // Schedules fire before admission, so a run they start is admitted by the same invocation.
  [CRON_FREQUENT]: async (env, at) => ({
    legacyAgentsArmed: await armLegacyAgents(env, at),
    practiceSchedulesStarted: await runDueSchedules(env, at),
    practiceRunsAdmitted: await admitAllQueuedRuns(env),
    practiceSetupsAbandoned: await failAbandonedSetups(env, at),
    keyTombstonesRewritten: await rewriteRecentTombstones(env, at),
    usageRowsAbandoned: await new LlmLedger(env, { now: () => at }).reapOpen(abandonAfterMs(env)),
  }),
  [CRON_DAILY]: async (env, at) => ({ auditPruned: await pruneAudit(env, at), eventDeliveriesPruned: await pruneDeliveries(env, at) }),
};

export async function runScheduled(controller: ScheduledController, env: Env): Promise<Record<string, number>> {
  const log = createLogger({ cron: controller.cron }, variables(env).LOG_LEVEL);
  const task = cronTasks[controller.cron];
  if (!task) {
    log.warn("no task for cron expression");
    return {};
  }
  const result = await task(env, controller.scheduledTime);
  log.info("cron done", result);
  return result;
}
