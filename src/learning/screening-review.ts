import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { BudgetExceededError, createLlm, llmConfigured } from "../llm";
import type { LearnerMemory } from "./ports";
import { REVIEW_BATCH, reviewLessons } from "./safety-review";

export interface ScreeningReviewJob {
  tenantId: string;
  agentId: string;
}

/** Batches per delivery; what remains is queued again, so no invocation runs long. */
const ROUNDS_PER_DELIVERY = 5;

/**
 * Reviews what the screening step left `pending`, a batch of entries per LLM call (counted in the
 * usage ledger like every call). A verdict applies only to an entry still pending with the text
 * that was reviewed. Without an LLM, or over budget, entries simply stay pending: they are not
 * served, an admin can release them, and the agent's sweep asks for the review again.
 */
export async function runScreeningReview(job: ScreeningReviewJob, memory: LearnerMemory, env: Env, log: Logger): Promise<unknown> {
  if (!llmConfigured(env)) return { skipped: "no LLM configured; pending entries wait" };
  const llm = createLlm(env, { tenantId: job.tenantId, agentId: job.agentId, logger: log });
  const totals = { admitted: 0, quarantined: 0, stale: 0, phrasesAdmitted: 0, phrasesRejected: 0 };
  /** The verdicts, or null when the tenant's budget is spent (the entries keep waiting). */
  const review = async (lessons: Parameters<typeof reviewLessons>[1], purpose: string) => {
    try {
      return (await reviewLessons(llm, lessons, purpose)).verdicts;
    } catch (err) {
      if (err instanceof BudgetExceededError) return null;
      throw err;
    }
  };
  const overBudget = () => ({ ...totals, skipped: "budget: the tenant's LLM budget is spent" });
  let rounds = ROUNDS_PER_DELIVERY;
  for (; rounds > 0; rounds--) {
    const { items, remaining } = await memory.pendingReviews({ limit: REVIEW_BATCH });
    if (!items.length) break;
    const verdicts = await review(items, "admission-review");
    if (!verdicts) return overBudget();
    const applied = await memory.applyReviews({
      verdicts: items.map((item, i) => ({ id: item.id, kind: item.kind, text: item.text, when: item.when ?? null, ...verdicts[i]! })),
    });
    totals.admitted += applied.admitted;
    totals.quarantined += applied.quarantined;
    totals.stale += applied.stale;
    if (remaining <= items.length) {
      rounds--;
      break;
    }
  }
  // Learned phrases (the words of rewarded queries) steer retrieval: they pass the same review.
  for (; rounds > 0; rounds--) {
    const { items, remaining } = await memory.pendingPhraseReviews({ limit: REVIEW_BATCH });
    if (!items.length) return totals;
    const verdicts = await review(
      items.map((p) => ({ text: p.text })),
      "phrase-review",
    );
    if (!verdicts) return overBudget();
    const applied = await memory.applyPhraseReviews({ verdicts: items.map((p, i) => ({ ...p, safe: verdicts[i]?.safe ?? false })) });
    totals.phrasesAdmitted += applied.admitted;
    totals.phrasesRejected += applied.rejected;
    if (remaining <= items.length) return totals;
  }
  await env.JOBS.send({ type: "admission.review", ...job });
  log.info("screening review continues", { agentId: job.agentId, ...totals });
  return { ...totals, continued: true };
}
