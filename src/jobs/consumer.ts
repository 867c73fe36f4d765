import type { Env } from "../env";
import { createLogger, type Logger } from "../core/logger";
import { JobMessageSchema, type JobMessage } from "../core/job-messages";
import { forEarlierAgent, jobHandlers } from "./handlers";
import { isRetryable } from "../core/errors";
import { withSpan } from "../trace";
import { variables } from "../config";

/** Backoff for failed jobs: 5 s, 20 s, 45 s … capped at 10 minutes. */
const retryDelay = (attempts: number) => Math.min(600, 5 * attempts * attempts);

/**
 * Acks a message once its handler succeeded, or failed in a way no retry can mend (`isRetryable`:
 * a refused request, a missing LLM, a spent budget), which the handler has already recorded. Transient
 * failures are retried with backoff. A message that fails validation is retried too, so after
 * max_retries the queue moves it to praxis-jobs-dlq for inspection instead of dropping it silently.
 */
export async function consumeJobs(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const log = createLogger({ queue: batch.queue }, variables(env).LOG_LEVEL);
  // Messages of a batch are independent units of work (practice units above all), so they run side
  // by side; each is acked or retried on its own.
  await Promise.all(
    batch.messages.map((msg) => {
      // Each job is a span of the trace its message carries (the request that queued it, see src/trace.ts).
      const carried = (msg.body as { traceparent?: unknown } | null)?.traceparent;
      return withSpan(typeof carried === "string" ? carried : null, (span) =>
        consume(msg, log.child({ traceId: span.traceId, spanId: span.spanId }), env),
      );
    }),
  );
}

/** One message: validated, handed to its handler, then acked or retried. */
async function consume(msg: Message<unknown>, log: Logger, env: Env): Promise<void> {
  const parsed = JobMessageSchema.safeParse(msg.body);
  if (!parsed.success) {
    log.error("invalid job message", { messageId: msg.id, attempts: msg.attempts, issues: parsed.error.issues });
    msg.retry({ delaySeconds: retryDelay(msg.attempts) });
    return;
  }
  const job = parsed.data;
  try {
    if (await forEarlierAgent(env, job)) {
      log.info("job for an earlier incarnation of its agent, dropped", { messageId: msg.id, type: job.type });
      msg.ack();
      return;
    }
    const handler = jobHandlers[job.type] as (m: JobMessage, e: Env, l: typeof log, d: { attempts: number }) => Promise<unknown>;
    const result = await handler(job, env, log.child({ job: job.type, messageId: msg.id }), { attempts: msg.attempts });
    log.info("job done", { messageId: msg.id, type: job.type, result });
    msg.ack();
  } catch (err) {
    const retry = isRetryable(err);
    log.error(retry ? "job failed, will retry" : "job failed, not retryable", {
      messageId: msg.id,
      type: job.type,
      attempts: msg.attempts,
      err: String(err),
    });
    if (retry) msg.retry({ delaySeconds: retryDelay(msg.attempts) });
    else msg.ack();
  }
}
