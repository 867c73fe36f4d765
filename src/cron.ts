import type { Env } from "./env";
import { createLogger } from "./core/logger";
import { unwrap } from "./core/errors";
import { systemPrincipal } from "./core/principal";
import { armLegacyAgents } from "./use-cases/agent-upkeep";
import { admitQueuedPracticeRuns, failAbandonedPracticeSetups } from "./use-cases/practice-runs";
import { runDueSchedules } from "./use-cases/schedules";
import { rewriteKeyTombstones } from "./use-cases/api-keys";
import { reapAbandonedUsage } from "./use-cases/llm-usage";
import { pruneEventDeliveries } from "./use-cases/events";
import { pruneAuditLog } from "./use-cases/audit";
import { variables } from "./config";

export const CRON_FREQUENT = "*/5 * * * *";
export const CRON_DAILY = "17 3 * * *";

export type CronTasks = Record<string, (env: Env, at: number) => Promise<Record<string, number>>>;

/** Each task is a use case the cron calls as the system, named for the logs and the audit. */
const asCron = (task: string) => systemPrincipal(`cron.${task}`);

export const cronTasks: CronTasks = {
  // Schedules fire before admission, so a run they start is admitted by the same invocation.
  [CRON_FREQUENT]: async (env, at) => ({
    legacyAgentsArmed: unwrap(await armLegacyAgents({ env }, asCron("legacy-agents"), { at })),
    practiceSchedulesStarted: unwrap(await runDueSchedules({ env }, asCron("practice-schedules"), { at })),
    practiceRunsAdmitted: unwrap(await admitQueuedPracticeRuns({ env }, asCron("practice-admission"))),
    practiceSetupsAbandoned: unwrap(await failAbandonedPracticeSetups({ env }, asCron("practice-setups"), { at })),
    keyTombstonesRewritten: unwrap(await rewriteKeyTombstones({ env }, asCron("key-tombstones"), { at })),
    usageRowsAbandoned: unwrap(await reapAbandonedUsage({ env }, asCron("llm-usage"), { at })),
  }),
  [CRON_DAILY]: async (env, at) => ({
    auditPruned: unwrap(await pruneAuditLog({ env }, asCron("audit"), { at })),
    eventDeliveriesPruned: unwrap(await pruneEventDeliveries({ env }, asCron("event-deliveries"), { at })),
  }),
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
