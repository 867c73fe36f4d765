import { z } from "zod";
import type { Env } from "../env";
import type { Logger } from "../core/logger";
import { BudgetExceededError, createLlm, llmConfigured } from "../llm";
import { oneLine } from "../core/library-block";
import { clipWhen } from "../core/memory-types";
import { assessLesson } from "../core/poison";
import { fenceData, renderTemplate } from "../core/prompt-template";
import type { LearnerMemory } from "./ports";
import { reviewLessons } from "./safety-review";
import whenTemplate from "../../prompts/lesson-when.md";

export interface WhenWriterJob {
  tenantId: string;
  agentId: string;
}

/** Lessons described per call: one call shares the instructions, and stays short enough to describe each well. */
export const WHEN_BATCH = 20;
/** Batches per delivery; what remains is queued again, so no invocation runs long. */
const ROUNDS_PER_DELIVERY = 3;
const WHEN_TEMPERATURE = 0.3;

const WhenAnswerSchema = z.object({
  situations: z.array(z.object({ index: z.number().int().min(0), when: z.string() })),
});

/**
 * Writes the `when` of lessons that lack one (added by hand or before `when` existed): one LLM
 * call per batch, then the same filter and safety review as lesson text. A `when` that fails
 * either is not written (the lesson itself is not at fault); each lesson text is asked about once.
 */
export async function runWhenWriter(job: WhenWriterJob, memory: LearnerMemory, env: Env, log: Logger): Promise<unknown> {
  if (!llmConfigured(env)) return { skipped: "no LLM configured" };
  const llm = createLlm(env, { tenantId: job.tenantId, agentId: job.agentId, logger: log });
  const totals = { written: 0, rejected: 0, stale: 0 };
  for (let round = 0; round < ROUNDS_PER_DELIVERY; round++) {
    const { items, remaining } = await memory.lessonsWithoutWhen({ limit: WHEN_BATCH });
    if (!items.length) return totals;
    try {
      const listing = items
        .map((l, i) => [`${i}.`, ...(l.pattern ? [`   pattern: ${oneLine(l.pattern)}`] : []), `   text: ${oneLine(l.text)}`].join("\n"))
        .join("\n");
      const { data } = await llm.structured({
        role: "learner",
        purpose: "lesson-when",
        schema: WhenAnswerSchema,
        schemaName: "lesson_situations",
        temperature: WHEN_TEMPERATURE,
        messages: [{ role: "user", content: renderTemplate(whenTemplate, { lessons: fenceData("lessons", listing) }) }],
      });
      const written = new Map<number, string>();
      for (const s of data.situations) {
        const when = clipWhen(s.when) ?? "";
        if (s.index < items.length && when && !written.has(s.index)) written.set(s.index, when);
      }
      const candidates = [...written].filter(([i, when]) => !assessLesson({ text: items[i]!.text, when }).quarantined);
      const { verdicts } = candidates.length
        ? await reviewLessons(
            llm,
            candidates.map(([i, when]) => ({ text: items[i]!.text, when })),
            "lesson-when-review",
          )
        : { verdicts: [] };
      const safe = candidates.filter((_, n) => verdicts[n]?.safe).map(([i, when]) => ({ id: items[i]!.id, text: items[i]!.text, when }));
      const applied = await memory.applyWhen({ written: safe, asked: items.map((l) => ({ id: l.id, text: l.text })) });
      totals.written += applied.written;
      totals.stale += applied.stale;
      totals.rejected += items.length - safe.length;
    } catch (err) {
      if (err instanceof BudgetExceededError) return { ...totals, skipped: `budget: ${err.message}` };
      throw err;
    }
    if (remaining <= items.length) return totals;
  }
  await env.JOBS.send({ type: "lesson.when", ...job });
  return { ...totals, continued: true };
}
