import hindsightTemplate from "../../prompts/practice-hindsight.md";
import { fenceData, renderTemplate } from "../core/prompt-template";
import { renderLibraryBlock } from "../core/library-block";
import { HindsightLessonSchema, type HindsightLesson } from "../core/practice/hindsight";
import { capText, MAX_ANSWER_CHARS, NO_LESSONS, type UnitInput } from "../core/practice/units";
import type { LlmClient, LlmUsage } from "../llm";

/** Learning calls reason about evidence; a low temperature keeps them close to it. */
const HINDSIGHT_TEMPERATURE = 0.3;

/**
 * A failed attempt's trajectory is shown shorter than in a summary call: the hindsight call sees
 * every attempt of the group at once and has no summaries to lean on.
 */
const HINDSIGHT_TRAJECTORY_CHARS = 6_000;

type Input = Extract<UnitInput, { stage: "hindsight" }>;

function evidence(input: Input): string {
  if (input.reference !== null)
    return `Reference answer (a correct result for this task):\n\n${fenceData("reference answer", input.reference)}`;
  return "No reference answer is available; the verifier's reasons for each failed attempt are shown with it.";
}

/** One call for a group whose attempts all failed: compare them with the reference, propose at most one lesson. */
export async function hindsightLesson(llm: LlmClient, input: Input): Promise<{ data: HindsightLesson; usage: LlmUsage }> {
  const attempts = input.attempts
    .map((a, i) =>
      [
        `### Attempt ${i} (reward ${a.reward.toFixed(2)})`,
        fenceData(`attempt ${i} trajectory`, capText(a.trajectory ?? a.answer, HINDSIGHT_TRAJECTORY_CHARS)),
        fenceData(`attempt ${i} final answer`, capText(a.answer, MAX_ANSWER_CHARS)),
        ...(a.verdict ? [fenceData(`verifier's reason for attempt ${i}`, capText(a.verdict, 2000))] : []),
      ].join("\n\n"),
    )
    .join("\n\n");
  const prompt = renderTemplate(hindsightTemplate, {
    suspects: input.suspects.length ? input.suspects.join(", ") : "(none: the library is empty)",
    library: renderLibraryBlock(input.library, NO_LESSONS),
    task: fenceData("task", input.task),
    reference: evidence(input),
    attempts,
  });
  const r = await llm.structured({
    role: "learner",
    purpose: "practice-hindsight",
    schema: HindsightLessonSchema,
    schemaName: "hindsight_lesson",
    temperature: HINDSIGHT_TEMPERATURE,
    messages: [{ role: "user", content: prompt }],
  });
  return { data: r.data, usage: r.usage };
}
