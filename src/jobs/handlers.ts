import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { QUEUE_MAX_RETRIES, type JobMessage, type JobType } from "../core/job-messages";
import { agentIncarnation } from "../use-cases/agents";
import { reembedBatch, sweepAgent } from "../use-cases/agent-upkeep";
import { extractLiveLessons, recordJobFailure, reviewPendingEntries, writeLessonSituations } from "../use-cases/live-jobs";
import { runPracticeUnitJob } from "../use-cases/practice-runs";
import { runEvaluationUnitJob } from "../use-cases/evaluations";
import { checkRemedial, type RemedialOutcome } from "../use-cases/remedial";
import { DomainError, isRetryable, unwrap } from "../core/errors";
import { systemPrincipal } from "../core/principal";
import { deliverQueuedEvent, fanOutEvents } from "../use-cases/events";

export interface Delivery {
  /** 1 on first delivery; the last try is QUEUE_MAX_RETRIES + 1. */
  attempts: number;
}

type Handler<T extends JobType> = (msg: Extract<JobMessage, { type: T }>, env: Env, log: Logger, delivery: Delivery) => Promise<unknown>;

/** A remedial check that, when its due trigger is held back, asks again later through the queue. */
async function remedialWithRecheck(env: Env, tenantId: string, agentId: string, at: number): Promise<RemedialOutcome> {
  const outcome = unwrap(await checkRemedial({ env }, systemPrincipal("agent.remedial"), { tenantId, agentId, at }));
  if (outcome.outcome === "skipped" && outcome.recheckInSeconds) {
    const delaySeconds = outcome.recheckInSeconds;
    await env.JOBS.send({ type: "agent.remedial", tenantId, agentId, at: at + delaySeconds * 1000 }, { delaySeconds });
  }
  return outcome;
}

/**
 * True when the message was queued by an incarnation of its agent that is gone (deleted, then
 * created again under the same id): the new agent must not take the old one's work. Writes that
 * carry the old agent's data (a live lesson) check again atomically in the agent's object.
 */
export async function forEarlierAgent(env: Env, job: JobMessage): Promise<boolean> {
  if (!("incarnation" in job) || job.incarnation === undefined) return false;
  // A deleted agent has no incarnation (null): its jobs are settled like an earlier one's.
  return unwrap(await agentIncarnation({ env }, systemPrincipal("queue"), job)) !== job.incarnation;
}

/** One handler per message type; the mapped type makes a missing handler a compile error. */
export const jobHandlers: { [T in JobType]: Handler<T> } = {
  "agent.sweep": async (msg, env) => {
    const swept = unwrap(await sweepAgent({ env }, systemPrincipal(msg.type), msg));
    return { ...swept, remedial: await remedialWithRecheck(env, msg.tenantId, msg.agentId, msg.at) };
  },
  // Asked by the agent's own sweep (its Durable Object alarm) when episodes ended since the last check.
  "agent.remedial": (msg, env) => remedialWithRecheck(env, msg.tenantId, msg.agentId, msg.at),
  // Re-embedding goes in batches; each batch re-queues the next so no invocation runs long.
  "agent.reembed": async (msg, env) => {
    const result = unwrap(await reembedBatch({ env }, systemPrincipal(msg.type), msg));
    if (!result.stale && result.remaining > 0) await env.JOBS.send(msg);
    return result;
  },
  "admission.review": async (msg, env, log) => unwrap(await reviewPendingEntries({ env, logger: log }, systemPrincipal(msg.type), msg)),
  "lesson.when": async (msg, env, log) => unwrap(await writeLessonSituations({ env, logger: log }, systemPrincipal(msg.type), msg)),
  "practice.unit": async (msg, env, log, delivery) =>
    unwrap(await runPracticeUnitJob({ env, logger: log }, systemPrincipal(msg.type), { msg, attempts: delivery.attempts })),
  "evaluation.unit": async (msg, env, log, delivery) =>
    unwrap(await runEvaluationUnitJob({ env, logger: log }, systemPrincipal(msg.type), { msg, attempts: delivery.attempts })),
  "event.emit": async (msg, env) => unwrap(await fanOutEvents({ env }, systemPrincipal(msg.type), msg)),
  "event.deliver": async (msg, env, log, delivery) =>
    unwrap(await deliverQueuedEvent({ env }, systemPrincipal(msg.type), { msg, log, attempts: delivery.attempts })),
  "live.extract": async (msg, env, log, delivery) => {
    try {
      return unwrap(await extractLiveLessons({ env, logger: log }, systemPrincipal(msg.type), msg));
    } catch (err) {
      // The agent was deleted (its object refuses every call): no retry can help, and nothing is left to record on.
      if (err instanceof DomainError && err.kind === "not-found") return { skipped: err.message };
      // The job page shows each failure: a retry to come, the last one going to the dead-letter
      // queue, or one that no retry can mend (the consumer acks it).
      const retryable = isRetryable(err);
      const final = !retryable || delivery.attempts > QUEUE_MAX_RETRIES;
      const why = !retryable
        ? "failed, not retryable"
        : final
          ? "failed after retries, sent to dead-letter queue"
          : `attempt ${delivery.attempts} failed, will retry`;
      const reason = `${why}: ${err instanceof Error ? err.message : String(err)}`;
      unwrap(await recordJobFailure({ env }, systemPrincipal(msg.type), { ...msg, final, reason }));
      throw err;
    }
  },
};
