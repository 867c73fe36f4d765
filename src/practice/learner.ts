import { z } from "zod";
import summaryTemplate from "../../prompts/practice-summary.md";
import advantageTemplate from "../../prompts/practice-advantage.md";
import batchTemplate from "../../prompts/practice-batch.md";
import { fenceData, renderTemplate } from "../core/prompt-template";
import { renderLibraryBlock } from "../core/library-block";
import { BatchPlanSchema, GroupAdvantageSchema, type BatchPlan, type GroupAdvantage } from "../core/practice/plan";
import { capText, MAX_ANSWER_CHARS, MAX_TRAJECTORY_CHARS, NO_LESSONS, type UnitInput } from "../core/practice/units";
import type { LlmClient, LlmUsage } from "../llm";

/** Learning calls reason about evidence; a low temperature keeps them close to it. */
const LEARNER_TEMPERATURE = 0.3;

type Input<S extends UnitInput["stage"]> = Extract<UnitInput, { stage: S }>;

const SummariesSchema = z.object({ summaries: z.array(z.string()) });

const reference = (gt: string | null) =>
  gt === null ? "No reference answer is available for this task." : `Reference answer:\n\n${fenceData("reference answer", gt)}`;

/** Summarises every attempt of one group in one call (the attempts share the task and the library). */
export async function summarise(llm: LlmClient, input: Input<"summary">): Promise<{ data: { summaries: string[] }; usage: LlmUsage }> {
  const attempts = input.attempts
    .map((a, i) =>
      [
        `### Attempt ${i} (reward ${a.reward.toFixed(2)})`,
        fenceData(`attempt ${i} trajectory`, capText(a.trajectory ?? a.answer, MAX_TRAJECTORY_CHARS)),
        fenceData(`attempt ${i} final answer`, capText(a.answer, MAX_ANSWER_CHARS)),
      ].join("\n\n"),
    )
    .join("\n\n");
  const prompt = renderTemplate(summaryTemplate, {
    library: renderLibraryBlock(input.library, NO_LESSONS),
    task: fenceData("task", input.task),
    reference: reference(input.reference),
    attempts,
  });
  const r = await llm.structured({
    role: "summarizer",
    purpose: "practice-summary",
    schema: SummariesSchema,
    schemaName: "attempt_summaries",
    temperature: LEARNER_TEMPERATURE,
    messages: [{ role: "user", content: prompt }],
  });
  const summaries = input.attempts.map((_, i) => r.data.summaries[i] ?? "(no summary)");
  return { data: { summaries }, usage: r.usage };
}

/** Compares a group's attempts and proposes at most `maxOps` library changes. */
export async function groupAdvantage(llm: LlmClient, input: Input<"advantage">): Promise<{ data: GroupAdvantage; usage: LlmUsage }> {
  const attempts = input.attempts
    .map((a, i) =>
      [
        `### Attempt ${i} — reward ${a.reward.toFixed(2)}`,
        fenceData(`attempt ${i} summary`, a.summary),
        fenceData(`attempt ${i} final answer`, capText(a.answer, MAX_ANSWER_CHARS)),
      ].join("\n\n"),
    )
    .join("\n\n");
  const prompt = renderTemplate(advantageTemplate, {
    maxOps: String(input.maxOps),
    library: renderLibraryBlock(input.library, NO_LESSONS),
    task: fenceData("task", input.task),
    reference: reference(input.reference),
    attempts,
  });
  const r = await llm.structured({
    role: "learner",
    purpose: "practice-advantage",
    schema: GroupAdvantageSchema,
    schemaName: "group_advantage",
    temperature: LEARNER_TEMPERATURE,
    messages: [{ role: "user", content: prompt }],
  });
  return { data: r.data, usage: r.usage };
}

/** Reconciles every group's proposals into the step's one final plan. */
export async function batchUpdate(llm: LlmClient, input: Input<"batch">): Promise<{ data: BatchPlan; usage: LlmUsage }> {
  const proposals = input.groups
    .map((g) =>
      [
        `### Task ${g.taskId}${g.provenance === "hindsight" ? " (hindsight: every attempt failed; proposed by comparing them with a correct result)" : ""}`,
        fenceData(`task ${g.taskId}`, capText(g.task, 4000)),
        fenceData(`analysis for task ${g.taskId}`, g.analysis || "(none)"),
        fenceData(`proposals for task ${g.taskId}`, JSON.stringify(g.proposals, null, 1)),
      ].join("\n\n"),
    )
    .join("\n\n");
  const prompt = renderTemplate(batchTemplate, {
    library: renderLibraryBlock(input.library, NO_LESSONS),
    size: String(input.library.length),
    maxExperiences: String(input.maxExperiences),
    proposals,
  });
  const r = await llm.structured({
    role: "learner",
    purpose: "practice-batch",
    schema: BatchPlanSchema,
    schemaName: "batch_plan",
    temperature: LEARNER_TEMPERATURE,
    messages: [{ role: "user", content: prompt }],
  });
  return { data: r.data, usage: r.usage };
}
