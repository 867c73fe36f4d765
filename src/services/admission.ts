import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { llmConfigured } from "../llm";
import { runAdmissionReview } from "../learning/admission-review";
import { REVIEW_BATCH } from "../learning/safety-review";

/**
 * A client's small write (one review call's worth of pending entries) is reviewed before the write
 * answers, so an agent that adds a lesson can use it at once; the entries stay unserved until then.
 * Larger writes, and any review that fails here, are left to the queued batched review the write
 * already requested. Returns whether a review ran, i.e. whether the caller should read the entries again.
 */
export async function reviewSmallWrite(env: Env, tenantId: string, agentId: string, pending: number, log: Logger): Promise<boolean> {
  if (pending === 0 || pending > REVIEW_BATCH || !llmConfigured(env)) return false;
  try {
    await runAdmissionReview({ tenantId, agentId }, env, log, 1);
    return true;
  } catch (err) {
    log.warn("inline admission review failed; the queued review will retry", { agentId, err: String(err) });
    return false;
  }
}
