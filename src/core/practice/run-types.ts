import { z } from "zod";
import { VerifierSchema } from "../verifiers/schema";

export const RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled", "budget-exhausted"] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export const TERMINAL_STATUSES: readonly RunStatus[] = ["completed", "failed", "cancelled", "budget-exhausted"];
export const isTerminal = (s: RunStatus) => TERMINAL_STATUSES.includes(s);

/** The stages of one step, in order. */
export const STAGES = ["rollout", "verify", "summary", "advantage", "batch", "apply"] as const;
export const StageSchema = z.enum(STAGES);
export type Stage = z.infer<typeof StageSchema>;

export const PolicySchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("llm"),
      model: z.string().trim().min(1).max(200).optional().describe("overrides LLM_MODEL_POLICY for this run"),
      system: z.string().max(8000).optional().describe("the agent's own system prompt; the library block is added after it"),
      temperature: z.number().min(0).max(2).default(0.7),
    })
    .strict(),
  z
    .object({
      kind: z.literal("webhook"),
      url: z.url({ protocol: /^https?$/ }).max(2000),
      timeoutMs: z.number().int().min(1000).max(3_600_000).default(120_000).describe("how long a rollout may take, including a 202 and a later result"),
    })
    .strict(),
]);
export type Policy = z.infer<typeof PolicySchema>;

export const BudgetSchema = z
  .object({
    maxTokens: z.number().int().positive().optional(),
    maxCostUsd: z.number().positive().optional(),
  })
  .strict();

/** `POST /v1/agents/:agentId/practice-runs`. */
export const RunCreateSchema = z
  .object({
    datasetId: z.string().min(1).max(64),
    epochs: z.number().int().min(1).max(20).default(3),
    batchSize: z.number().int().min(1).max(200).default(20),
    groupSize: z.number().int().min(2).max(16).default(5),
    verifier: VerifierSchema.optional(),
    policy: PolicySchema,
    maxOpsPerGroup: z.number().int().min(1).max(10).default(3),
    useGroundTruth: z.boolean().default(true).describe("show ground truths to the summary and advantage calls"),
    concurrency: z.number().int().min(1).max(64).default(16).describe("units of this run in flight at once"),
    budget: BudgetSchema.optional(),
    promote: z.enum(["always", "never"]).default("always"),
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  })
  .strict();
export type RunCreate = z.infer<typeof RunCreateSchema>;

/** The run's configuration as stored: defaults filled in, the verifier resolved, a seed chosen. */
export const RunConfigSchema = RunCreateSchema.extend({
  verifier: VerifierSchema,
  seed: z.number().int(),
});
export type RunConfig = z.infer<typeof RunConfigSchema>;

export const UsageTotalsSchema = z.object({
  calls: z.number().int(),
  tokensIn: z.number().int(),
  tokensOut: z.number().int(),
  costUsd: z.number(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;
export const zeroUsage = (): UsageTotals => ({ calls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 });
export const addUsage = (a: UsageTotals, b: Partial<UsageTotals> | null | undefined): UsageTotals => ({
  calls: a.calls + (b?.calls ?? 0),
  tokensIn: a.tokensIn + (b?.tokensIn ?? 0),
  tokensOut: a.tokensOut + (b?.tokensOut ?? 0),
  costUsd: a.costUsd + (b?.costUsd ?? 0),
});

export const ProgressSchema = z.object({
  epoch: z.number().int(),
  step: z.number().int(),
  stage: StageSchema.nullable(),
  stepsPerEpoch: z.number().int(),
  rollouts: z.object({ done: z.number().int(), total: z.number().int() }),
  groups: z.object({ kept: z.number().int(), filtered: z.number().int() }),
});

export const PromotionSchema = z.object({
  promoted: z.boolean(),
  reason: z.string(),
  version: z.number().int().nullable(),
  applied: z.number().int(),
  skipped: z.array(z.object({ id: z.string(), op: z.string(), reason: z.string() })),
});
export type Promotion = z.infer<typeof PromotionSchema>;

export const RunViewSchema = z.object({
  runId: z.string(),
  agentId: z.string(),
  datasetId: z.string(),
  status: RunStatusSchema,
  config: RunConfigSchema,
  progress: ProgressSchema,
  trainReward: z.array(z.object({ epoch: z.number().int(), step: z.number().int(), meanReward: z.number().nullable() })),
  usage: UsageTotalsSchema,
  librarySize: z.number().int(),
  promotion: PromotionSchema.nullable(),
  error: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  startedAt: z.number().int().nullable(),
  endedAt: z.number().int().nullable(),
});
export type RunView = z.infer<typeof RunViewSchema>;

/** What a webhook policy answers (at once, or later through the rollout result route). */
export const RolloutAnswerSchema = z
  .object({
    answer: z.string().max(64_000),
    trajectory: z.unknown().optional(),
  })
  .strict();
export type RolloutAnswer = z.infer<typeof RolloutAnswerSchema>;
