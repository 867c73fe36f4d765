import { assessLesson } from "../core/poison";
import type { PlanOp } from "../core/practice/plan";
import type { PlanReview } from "../core/practice/units";
import { LlmOutputError, type LlmClient, type LlmUsage } from "../llm";
import { reviewLessons } from "../learning/safety-review";

/**
 * The LLM safety review of every lesson text a batch plan would write, before the run injects it
 * into later rollouts. Texts the cheap filter already blocks are not sent (the run drops them
 * anyway). A review the model could not answer usably leaves `review` null: the run then writes
 * no new text from this plan (fail closed), while deletes still apply.
 */
export async function reviewPlan(
  llm: LlmClient,
  ops: readonly PlanOp[],
): Promise<{ review: PlanReview; usage: LlmUsage | null; error?: string }> {
  const asked = ops.flatMap((op, i) =>
    op.op !== "delete" && op.text.trim() && !assessLesson({ text: op.text, when: op.when }).quarantined ? [i] : [],
  );
  if (asked.length === 0) return { review: ops.map(() => null), usage: null };
  try {
    const { verdicts, usage } = await reviewLessons(
      llm,
      asked.map((i) => ({ text: ops[i]!.text, when: ops[i]!.when || null })),
      "practice-review",
    );
    const review: PlanReview = ops.map(() => null);
    asked.forEach((opIndex, n) => (review![opIndex] = verdicts[n] ?? null));
    return { review, usage };
  } catch (err) {
    if (err instanceof LlmOutputError) return { review: null, usage: null, error: err.message };
    throw err;
  }
}
