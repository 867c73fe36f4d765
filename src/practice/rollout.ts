import policyTemplate from "../../prompts/practice-policy.md";
import { renderTemplate } from "../core/prompt-template";
import { renderLibraryBlock } from "../core/library-block";
import { capText, MAX_ANSWER_CHARS, MAX_TRAJECTORY_CHARS, NO_LESSONS, type UnitData, type UnitInput } from "../core/practice/units";
import { extractFinalAnswer } from "../core/verifiers";
import type { LlmClient, LlmUsage } from "../llm";

const DEFAULT_SYSTEM = "You are a careful problem solver.";

type RolloutInput = Extract<UnitInput, { stage: "rollout" }>;

/**
 * One rollout by the LLM policy: the agent's system prompt with the run's library injected as
 * `[G0]. …` lines (stable, so providers' prompt caching applies across the group), then the task.
 */
export async function llmRollout(
  llm: LlmClient,
  input: RolloutInput,
  purpose = "practice-rollout",
): Promise<{ data: UnitData["rollout"]; usage: LlmUsage }> {
  if (input.policy.kind !== "llm") throw new TypeError("llmRollout needs an llm policy");
  const system = renderTemplate(policyTemplate, {
    system: input.policy.system?.trim() || DEFAULT_SYSTEM,
    library: renderLibraryBlock(input.library, NO_LESSONS),
  });
  const r = await llm.chat({
    role: "policy",
    purpose,
    ...(input.policy.model ? { model: input.policy.model } : {}),
    temperature: input.policy.temperature,
    seed: input.seed,
    messages: [
      { role: "system", content: system },
      { role: "user", content: input.task },
    ],
  });
  return {
    data: { answer: capText(extractFinalAnswer(r.text), MAX_ANSWER_CHARS), trajectory: capText(r.text, MAX_TRAJECTORY_CHARS) },
    usage: r.usage,
  };
}
