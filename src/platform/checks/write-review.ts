import type { Env } from "../../env";
import type { Logger } from "../../core/logger";
import { createLlm, llmConfigured, LlmUnavailableError } from "../../llm";
import { REVIEW_BATCH, reviewLessons, type ReviewedLesson } from "../../learning/safety-review";
import { assessLesson } from "../../core/poison";

/**
 * How long a write waits for an LLM slot for its review. Past it the write is not refused: it is
 * stored `pending` and the queued review decides, so a burst of writes is accepted rather than
 * queued behind the isolate's few LLM slots (see src/http/README.md, "Overload").
 */
export const REVIEW_SLOT_WAIT_MS = 2_000;

/**
 * A client's small write (a lesson, or an import of at most one review call's worth) is put to the
 * safety review before it is written, so the write answers with lessons the agent can use at once
 * (one library version, no wait for the queued review). Only all-`safe` verdicts count: an unsafe
 * verdict, no LLM, a larger write or a failed call leave the write to the screening step as usual
 * (held `pending` for the batched review, which quarantines with its reason). Text the filter
 * flags is not sent: screening holds it anyway, and talk about an attack is reviewed there with
 * the filter's reason.
 */
export async function reviewedBeforeWrite(
  env: Env,
  tenantId: string,
  agentId: string,
  lessons: ReviewedLesson | readonly ReviewedLesson[],
  log: Logger,
): Promise<boolean> {
  const all = Array.isArray(lessons) ? lessons : [lessons as ReviewedLesson];
  if (!all.length || all.length > REVIEW_BATCH || !llmConfigured(env)) return false;
  if (all.some((l) => assessLesson(l).quarantined)) return false;
  try {
    const llm = createLlm(env, { tenantId, agentId, logger: log, maxWaitMs: REVIEW_SLOT_WAIT_MS });
    const { verdicts } = await reviewLessons(llm, all, "admission-review");
    return verdicts.length === all.length && verdicts.every((v) => v.safe);
  } catch (err) {
    // Saturation is the expected answer to a burst, one line per write of it would flood the log.
    const saturated = err instanceof LlmUnavailableError && err.detail.saturated === true;
    log[saturated ? "info" : "warn"]("safety review before a write failed; the entry waits for the queued review", {
      agentId,
      err: String(err),
    });
    return false;
  }
}
