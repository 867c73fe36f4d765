import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { createLlm, llmConfigured } from "../llm";
import { reviewLessons, type ReviewedLesson } from "../learning/safety-review";

/**
 * A client's single lesson is put to the safety review before it is written, so the write answers
 * with a lesson the agent can use at once (one library version, no wait for the queued review).
 * Only a `safe` verdict counts: an unsafe verdict, no LLM or a failed call leave the write to the
 * admission step as usual (held `pending` for the batched review, which quarantines with its reason).
 */
export async function reviewedBeforeWrite(env: Env, tenantId: string, agentId: string, lesson: ReviewedLesson, log: Logger): Promise<boolean> {
  if (!llmConfigured(env)) return false;
  try {
    const llm = createLlm(env, { tenantId, agentId, logger: log });
    const { verdicts } = await reviewLessons(llm, [lesson], "admission-review");
    return verdicts[0]?.safe === true;
  } catch (err) {
    log.warn("safety review before a write failed; the entry waits for the queued review", { agentId, err: String(err) });
    return false;
  }
}
