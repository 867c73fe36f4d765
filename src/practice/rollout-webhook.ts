import { z } from "zod";
import { capText, MAX_ANSWER_CHARS, MAX_TRAJECTORY_CHARS, type UnitData, type UnitInput } from "../core/practice/units";
import { signedPost, WebhookError } from "./signed-post";
import { webhookWaitMs } from "../core/practice/unit-timing";

type RolloutInput = Extract<UnitInput, { stage: "rollout" }>;

/** What the agent answers at once; unknown fields are ignored so agents can send more. */
const ImmediateAnswerSchema = z.object({ answer: z.string(), trajectory: z.unknown().optional() });

export const trajectoryText = (t: unknown): string | null =>
  t === undefined || t === null ? null : capText(typeof t === "string" ? t : JSON.stringify(t), MAX_TRAJECTORY_CHARS);

/** A rollout's answer as stored, from what the agent sent (at once or later), size-capped. */
export const rolloutData = (a: { answer: string; trajectory?: unknown }): UnitData["rollout"] => ({
  answer: capText(a.answer, MAX_ANSWER_CHARS),
  trajectory: trajectoryText(a.trajectory),
});

/**
 * One rollout by the user's own agent: a signed POST of `{ runId, rolloutId, task, experiences,
 * temperature, resultSecret }`. The agent answers `{ answer, trajectory? }` at once, or 202 and
 * posts the result later to `/v1/practice/rollouts/:rolloutId/result` with the header
 * `X-Praxis-Rollout-Secret: <resultSecret>`.
 */
export async function webhookRollout(input: RolloutInput, secret: string): Promise<{ data?: UnitData["rollout"]; awaiting?: true }> {
  if (input.policy.kind !== "webhook") throw new TypeError("webhookRollout needs a webhook policy");
  const { status, data } = await signedPost({
    url: input.policy.url,
    secret,
    timeoutMs: webhookWaitMs(input.policy.timeoutMs),
    body: {
      runId: input.runId,
      rolloutId: input.rolloutId,
      task: input.task,
      experiences: input.library,
      temperature: 0.7,
      resultSecret: input.resultSecret,
    },
  });
  if (status === 202) return { awaiting: true };
  const parsed = ImmediateAnswerSchema.safeParse(data);
  if (!parsed.success) {
    throw new WebhookError(
      "invalid-response",
      "The policy webhook must answer { answer: string, trajectory? } or 202 and post the result later.",
      status,
    );
  }
  return { data: rolloutData(parsed.data) };
}
