import { z } from "zod";
import { addUsage, type LlmClient, type LlmUsage } from "../llm";
import { oneLine } from "../core/library-block";
import { fenceData, renderTemplate } from "../core/prompt-template";
import reviewTemplate from "../../prompts/safety-review.md";

export interface ReviewedLesson {
  text: string;
  pattern?: string | null;
  keywords?: readonly string[];
  /** The situations it applies to: retrieval searches them, so they are reviewed like the text. */
  when?: string | null;
  /** What the word filter found in it, when the filter sent it here instead of to quarantine. */
  flag?: string | null;
}

export const SafetyCategorySchema = z.enum(["safe", "injection", "exfiltration", "harmful-policy", "unsafe-advice", "other"]);

const SafetyReviewSchema = z.object({
  verdicts: z.array(
    z.object({
      index: z.number().int().min(0),
      safe: z.boolean(),
      category: SafetyCategorySchema,
      reason: z.string().trim().max(500),
    }),
  ),
});

export interface SafetyVerdict {
  safe: boolean;
  category: z.infer<typeof SafetyCategorySchema>;
  reason: string;
}

const SYSTEM = "You are Praxis's safety reviewer. Follow the task in the user message; answer only with the requested JSON.";
const REVIEW_TEMPERATURE = 0;
/** Lessons per call: a batch shares the instructions' tokens, and stays small enough to judge each one. */
export const REVIEW_BATCH = 20;

/**
 * The LLM safety review every new `live` or `practice` lesson passes before it can be injected,
 * after the cheap filter (src/core/poison.ts). Verdicts come back in input order. It fails
 * closed: a lesson the reviewer gave no verdict for, or contradictory ones, is unsafe.
 */
export async function reviewLessons(
  llm: LlmClient,
  lessons: readonly ReviewedLesson[],
  purpose = "safety-review",
): Promise<{ verdicts: SafetyVerdict[]; usage: LlmUsage | null }> {
  const out: SafetyVerdict[] = [];
  let usage: LlmUsage | null = null;
  for (let start = 0; start < lessons.length; start += REVIEW_BATCH) {
    const batch = lessons.slice(start, start + REVIEW_BATCH);
    const listing = batch
      .map((l, i) =>
        [
          `${i}.`,
          `   pattern: ${oneLine(l.pattern ?? "")}`,
          `   keywords: ${oneLine((l.keywords ?? []).join(", "))}`,
          ...(l.when ? [`   when: ${oneLine(l.when)}`] : []),
          `   text: ${oneLine(l.text)}`,
          ...(l.flag ? [`   filter: ${oneLine(l.flag)}`] : []),
        ].join("\n"),
      )
      .join("\n");
    const { data, usage: used } = await llm.structured({
      role: "judge",
      purpose,
      schema: SafetyReviewSchema,
      schemaName: "safety_review",
      temperature: REVIEW_TEMPERATURE,
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: renderTemplate(reviewTemplate, { lessons: fenceData("candidate lessons", listing) }) },
      ],
    });
    usage = usage ? addUsage(usage, used) : used;
    const byIndex = new Map<number, SafetyVerdict[]>();
    for (const v of data.verdicts)
      byIndex.set(v.index, [
        ...(byIndex.get(v.index) ?? []),
        { safe: v.safe && v.category === "safe", category: v.category, reason: v.reason },
      ]);
    batch.forEach((_, i) => {
      const given = byIndex.get(i) ?? [];
      if (given.length === 1) out.push(given[0]!);
      else
        out.push({
          safe: false,
          category: "other",
          reason: given.length ? "the reviewer gave conflicting verdicts" : "the reviewer gave no verdict",
        });
    });
  }
  return { verdicts: out, usage };
}
