import { z } from "zod";
import type { Verdict, VerifierConfig } from "../core/verifiers";
import { signedPost, WebhookError, type SignedPostRequest } from "./signed-post";

export type WebhookVerifierConfig = Pick<Extract<VerifierConfig, { kind: "webhook" }>, "url" | "timeoutMs">;

export interface WebhookVerifyInput {
  runId: string;
  taskId: string;
  task: string;
  answer: string;
  groundTruth?: string | null;
}

/** What the tenant's verifier answers. Extra fields are ignored so the receiver can evolve. */
export const WebhookVerdictSchema = z.object({
  reward: z.number().min(0).max(1),
  reasoning: z.string().optional(),
});

const MAX_REASONING = 2000;

/**
 * Scores an answer with the tenant's own verifier: a signed POST of
 * `{ runId, taskId, task, answer, groundTruth }` (groundTruth null when the task has none), to
 * which it answers `{ reward, reasoning? }` with reward in [0, 1]. Any other answer is a
 * WebhookError (`invalid-response`), like a timeout or an HTTP error, for the caller to retry or record.
 */
export async function webhookVerify(
  config: WebhookVerifierConfig,
  secret: string,
  input: WebhookVerifyInput,
  deps: Pick<SignedPostRequest, "fetch" | "now"> = {},
): Promise<Verdict> {
  const { status, data } = await signedPost({
    url: config.url,
    secret,
    timeoutMs: config.timeoutMs,
    body: { runId: input.runId, taskId: input.taskId, task: input.task, answer: input.answer, groundTruth: input.groundTruth ?? null },
    ...deps,
  });
  const parsed = WebhookVerdictSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ");
    throw new WebhookError(
      "invalid-response",
      `The verifier webhook's answer must be { reward: number in [0, 1], reasoning?: string }; ${issues}.`,
      status,
    );
  }
  const { reward, reasoning } = parsed.data;
  const text = reasoning?.trim() ? reasoning.trim().slice(0, MAX_REASONING) : `The verifier webhook returned reward ${reward}.`;
  return { reward, reasoning: text };
}
