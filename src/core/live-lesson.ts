import { z } from "zod";

export const MAX_LESSON_WORDS = 32;
/** A candidate this similar to an existing experience is the same lesson and is never added again. */
export const DUPLICATE_SIMILARITY = 0.9;

export const wordCount = (s: string) => s.trim().split(/\s+/).filter(Boolean).length;
const lesson = z
  .string()
  .trim()
  .max(400)
  .refine((s) => wordCount(s) <= MAX_LESSON_WORDS, { message: `must be at most ${MAX_LESSON_WORDS} words` });

/** What the extraction call returns: the contrast between failed and successful attempts. */
export const LiveInsightSchema = z.object({
  pattern: z.string().trim().max(200),
  keywords: z.array(z.string().trim().min(1).max(64)).max(12),
  insight: lesson,
  /** The situations the lesson applies to, in an agent's words; retrieval searches it, prompts never show it. Clipped, not refused, when long (clipWhen). */
  when: z.string().optional(),
});
export type LiveInsight = z.infer<typeof LiveInsightSchema>;

/** What the decide call returns after comparing the candidate with the most similar stored lessons. */
export const LiveDecisionSchema = z.object({
  operation: z.enum(["ADD", "UPDATE", "DELETE", "NOOP"]),
  targetId: z.string().max(64).optional(),
  text: lesson.optional(),
  reason: z.string().trim().max(500),
});
export type LiveDecision = z.infer<typeof LiveDecisionSchema>;

/** The lesson text a decision would store: ADD and UPDATE fall back to the candidate; DELETE stores only a given replacement. */
export function lessonToStore(candidate: LiveInsight, decision: LiveDecision): string {
  if (decision.operation === "NOOP") return "";
  return (decision.operation === "ADD" || decision.operation === "UPDATE" ? decision.text || candidate.insight : decision.text) ?? "";
}

/** What the worker hands the library along with a decision, so the DO can hold the LLM to it. */
export interface LiveDecisionContext {
  /** Ids of the stored lessons the decide step was shown; only these may be targeted. */
  shownIds: string[];
  /** The LLM safety review of the text to store; null when nothing needed reviewing. */
  review: { safe: boolean; category: string; reason: string } | null;
}
