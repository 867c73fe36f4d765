import { z } from "zod";
import { fenceData, renderTemplate } from "../core/prompt-template";
import type { Verdict, VerifierConfig } from "../core/verifiers";
import type { LlmClient, LlmUsage } from "../llm";
import judgeTemplate from "../../prompts/practice-judge.md";

export type JudgeConfig = Extract<VerifierConfig, { kind: "llm-judge" }>;

export const JudgeOutputSchema = z.object({
  verdict: z.enum(["CORRECT", "PARTIAL", "INCORRECT"]),
  score: z.number().min(0).max(1),
  reasoning: z.string().trim().min(1).max(2000),
});
export type JudgeOutput = z.infer<typeof JudgeOutputSchema>;

export type JudgeVerdict = Verdict & { verdict: JudgeOutput["verdict"]; usage: LlmUsage };

export interface JudgeInput {
  task: string;
  answer: string;
  groundTruth?: string | null;
}

/** Low and fixed, so that grading the same answer twice gives the same reward. */
export const JUDGE_TEMPERATURE = 0.1;
const MAX_TOKENS = 800;
/** Long answers keep their start and, mostly, their end, where the final result is. */
const MAX_ANSWER_CHARS = 24_000;

const SYSTEM = "You are Praxis's grader. Grade the answer as the user message describes; answer only with the requested JSON.";
const DEFAULT_RUBRIC = "No rubric was given: judge whether the answer correctly and completely solves the task.";
const NO_REFERENCE = "No reference answer is available: judge the answer on the task and the rubric alone.";

function shorten(answer: string): string {
  if (answer.length <= MAX_ANSWER_CHARS) return answer;
  const head = Math.floor(MAX_ANSWER_CHARS / 3);
  const tail = MAX_ANSWER_CHARS - head;
  return `${answer.slice(0, head)}\n[… ${answer.length - MAX_ANSWER_CHARS} characters omitted …]\n${answer.slice(-tail)}`;
}

/**
 * The reward from a verdict and its score. The verdict decides and the score grades within it:
 * CORRECT owns [passThreshold, 1], PARTIAL the open interval (0, 1), INCORRECT [0, passThreshold).
 * A score outside its verdict's band is a contradiction (usually the judge reporting its
 * confidence rather than the answer's quality), so it is replaced by the band's natural value:
 * CORRECT 1, PARTIAL 0.5, INCORRECT 0. Reward ≥ passThreshold therefore always means CORRECT.
 */
export function judgeReward(out: Pick<JudgeOutput, "verdict" | "score">, passThreshold: number): { reward: number; adjusted: boolean } {
  const { verdict, score } = out;
  const fits = verdict === "CORRECT" ? score >= passThreshold : verdict === "INCORRECT" ? score < passThreshold : score > 0 && score < 1;
  if (fits) return { reward: score, adjusted: false };
  return { reward: verdict === "CORRECT" ? 1 : verdict === "PARTIAL" ? 0.5 : 0, adjusted: true };
}

/**
 * Grades one answer with the `judge` role: the configured rubric, the ground truth when the task
 * has one, and the answer, each fenced as data. The LLM layer makes at most one repair call; an
 * answer still unusable after it throws LlmOutputError for the caller to record.
 */
export async function judgeAnswer(
  llm: LlmClient,
  config: JudgeConfig,
  input: JudgeInput,
  purpose = "practice-judge",
): Promise<JudgeVerdict> {
  const hasReference = typeof input.groundTruth === "string" && input.groundTruth.trim() !== "";
  const prompt = renderTemplate(judgeTemplate, {
    passThreshold: String(config.passThreshold),
    rubric: config.rubric ?? DEFAULT_RUBRIC,
    task: fenceData("task", input.task),
    groundTruth: hasReference ? fenceData("reference answer", input.groundTruth!) : NO_REFERENCE,
    answer: fenceData("agent's answer", input.answer.trim() === "" ? "(empty answer)" : shorten(input.answer)),
  });
  const result = await llm.structured({
    role: "judge",
    purpose,
    schema: JudgeOutputSchema,
    schemaName: "practice_judgement",
    temperature: JUDGE_TEMPERATURE,
    maxTokens: MAX_TOKENS,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: prompt },
    ],
  });
  const out = result.data;
  const { reward, adjusted } = judgeReward(out, config.passThreshold);
  const note = adjusted ? ` (The score ${out.score} contradicts the verdict ${out.verdict}; the reward is ${reward}.)` : "";
  return { reward, verdict: out.verdict, reasoning: `${out.verdict} (${out.score}): ${out.reasoning}${note}`, usage: result.usage };
}
