import { z } from "zod";
import { VerifierSchema } from "../verifiers/schema";
import { DatasetRefSchema, SplitSchema } from "./dataset-types";
import { LibraryIdSchema } from "../shared-lessons";
import { DEFAULT_VALIDATION_FRACTION } from "./split";
import { IntervalSchema, PairedDecisionSchema } from "../evaluation/decision";

export { IntervalSchema };

/** `creating` until the run's tasks (train and held-out) are all stored; only then can it be admitted. */
export const RUN_STATUSES = ["creating", "queued", "running", "completed", "failed", "cancelled", "budget-exhausted"] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export const TERMINAL_STATUSES: readonly RunStatus[] = ["completed", "failed", "cancelled", "budget-exhausted"];
export const isTerminal = (s: RunStatus) => TERMINAL_STATUSES.includes(s);

/** The stages of one step, in order. */
export const STAGES = ["rollout", "verify", "summary", "advantage", "hindsight", "batch", "apply"] as const;
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
      timeoutMs: z
        .number()
        .int()
        .min(1000)
        .max(3_600_000)
        .default(120_000)
        .describe("how long a rollout may take, including a 202 and a later result"),
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

/** Held-out evaluation during a run: epoch 0 is the starting library, then each epoch's (or only the final) library. */
export const RunEvaluateSchema = z
  .object({
    split: SplitSchema.default("holdout").describe("the split that judges the promotion (best chooses its epoch on the validation split)"),
    samples: z.number().int().min(1).max(8).default(1).describe("policy calls per task; a task scores the mean of its samples"),
    every: z.enum(["epoch", "end"]).default("epoch").describe("evaluate after every epoch, or only the starting and the final library"),
    maxSamples: z
      .number()
      .int()
      .min(1)
      .max(32)
      .optional()
      .describe(
        "gate and best: while the paired interval is too wide to decide, draw `samples` more per task for both libraries (the same new draws), up to this many per task, within the run's budget (default 4 × samples)",
      ),
  })
  .strict();
export type RunEvaluate = z.infer<typeof RunEvaluateSchema>;

/** Rounds of extra paired samples the gate may draw (maxSamples ÷ samples − 1); evaluate settings stored before maxSamples mean the default. */
export const extraRounds = (e: Pick<RunEvaluate, "samples" | "maxSamples">): number =>
  Math.max(0, Math.floor((e.maxSamples ?? Math.min(32, 4 * e.samples)) / e.samples) - 1);

export const PROMOTE_MODES = ["gate", "best", "always", "never"] as const;
export const PromoteModeSchema = z
  .enum(PROMOTE_MODES)
  .describe(
    "gate: promote the final library only if, compared with the starting library on the same holdout tasks and draws, the lower bound of the paired interval of the difference is above minGain; best: choose the epoch with the best validation accuracy (stopping after `patience` epochs without improvement) and judge it on holdout by the same rule; always; never. Default: gate when the dataset has a holdout split, else always",
  );
export type PromoteMode = z.infer<typeof PromoteModeSchema>;

/** The library size a batch update is told to stay within, and the apply step enforces. */
export const DEFAULT_MAX_EXPERIENCES = 40;

/** `POST /v1/agents/:agentId/practice-runs`. */
export const RunCreateSchema = z
  .object({
    datasetId: DatasetRefSchema,
    epochs: z.number().int().min(1).max(20).default(3),
    batchSize: z.number().int().min(1).max(200).default(20),
    groupSize: z.number().int().min(2).max(16).default(5),
    verifier: VerifierSchema.optional(),
    policy: PolicySchema,
    maxOpsPerGroup: z.number().int().min(1).max(10).default(3),
    useGroundTruth: z.boolean().default(true).describe("show ground truths to the summary, advantage and hindsight calls"),
    hindsight: z
      .boolean()
      .default(true)
      .describe(
        "learn from groups whose attempts all failed: one learner call per such group whose task has a reference answer (or a judge or webhook verifier's reasons) proposes at most one lesson for the batch update. false keeps the reference pipeline, which learns only from groups whose rewards differ",
      ),
    hindsightPerStep: z
      .number()
      .int()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "the most hindsight calls one step makes (default: one per four tasks of the step, at least one); groups whose attempts cited a stored lesson go first",
      ),
    concurrency: z.number().int().min(1).max(64).default(16).describe("units of this run in flight at once"),
    budget: BudgetSchema.optional(),
    promote: PromoteModeSchema.optional(),
    evaluate: RunEvaluateSchema.optional().describe("held-out evaluation per epoch; on by default under gate and best"),
    minGain: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe("gate and best: the lower bound of the paired interval of (candidate − starting library) must be above this"),
    patience: z.number().int().min(1).max(20).default(2).describe("best: epochs without improvement before the run stops early"),
    validationFraction: z
      .number()
      .min(0.05)
      .max(0.5)
      .default(DEFAULT_VALIDATION_FRACTION)
      .describe(
        "best: when the dataset labels no validation tasks, the share of train tasks set aside (by a hash of their ids; at least 4 where that leaves as many to train on) to choose the epoch",
      ),
    maxExperiences: z
      .number()
      .int()
      .min(1)
      .max(500)
      .default(DEFAULT_MAX_EXPERIENCES)
      .describe("the run's library never holds more lessons than this"),
    libraryId: LibraryIdSchema.optional().describe(
      "practise on this shared library of the tenant instead of the agent's own: the run starts from the library's active lessons, the agent's policy runs with them, and the promotion (through the same gate) writes to the library, where every subscriber draws on it",
    ),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
  })
  .strict();
export type RunCreate = z.infer<typeof RunCreateSchema>;

/** The run's configuration as stored: defaults filled in, the verifier resolved, a seed chosen. */
export const RunConfigSchema = RunCreateSchema.extend({
  verifier: VerifierSchema,
  seed: z.number().int(),
  promote: PromoteModeSchema,
  evaluate: RunEvaluateSchema.nullable(),
});
export type RunConfig = z.infer<typeof RunConfigSchema>;

export const UsageTotalsSchema = z.object({
  calls: z.number().int(),
  tokensIn: z.number().int(),
  tokensOut: z.number().int(),
  costUsd: z.number(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;
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

/** The gate's decision: the paired evidence, the libraries it compared, and how `best` chose its candidate. */
export const GateDecisionSchema = PairedDecisionSchema.extend({
  split: SplitSchema.describe("the split that judged"),
  incumbentEpoch: z.number().int(),
  candidateEpoch: z.number().int(),
  rounds: z.number().int().describe("rounds of paired samples drawn (1: no extra samples were needed)"),
  selection: z
    .object({ split: SplitSchema, epoch: z.number().int(), accuracy: z.number() })
    .nullable()
    .describe("best: the epoch chosen on the validation split, never seen by the judgment"),
});

export const PromotionSchema = z.object({
  promoted: z.boolean(),
  reason: z.string().describe("why the library was or was not promoted, with the holdout evidence when there was an evaluation"),
  epoch: z.number().int().nullable().optional().describe("the evaluated epoch whose library was promoted (best and gate)"),
  decision: GateDecisionSchema.nullable()
    .optional()
    .describe("gate and best: the paired comparison with the starting library that decided (null when none was made)"),
  version: z.number().int().nullable(),
  applied: z.number().int(),
  skipped: z.array(z.object({ id: z.string(), op: z.string(), reason: z.string() })),
});
export type Promotion = z.infer<typeof PromotionSchema>;
export type GateDecision = z.infer<typeof GateDecisionSchema>;

export const EVAL_STATUSES = ["pending", "running", "completed", "failed", "cancelled"] as const;

/**
 * One evaluation of a run: `epoch` counts the training epochs behind its library (0: the starting
 * library), `split` says which tasks, `round` which draw (0 first; later rounds are the gate's
 * extra paired samples).
 */
export const EpochEvaluationSchema = z.object({
  epoch: z.number().int(),
  evaluationId: z.string(),
  split: SplitSchema,
  round: z.number().int(),
  status: z.enum(EVAL_STATUSES),
  holdoutAccuracy: z.number().nullable().describe("accuracy on `split` (the holdout split unless it says otherwise)"),
  interval: IntervalSchema.nullable(),
  librarySize: z.number().int(),
  tokens: z.number().int(),
  costUsd: z.number(),
  error: z.string().nullable(),
});
export type EpochEvaluation = z.infer<typeof EpochEvaluationSchema>;

/** `GET …/practice-runs/:runId/curve`: what a learning-curve chart plots. */
export const CurveSchema = z.object({
  steps: z.array(
    z.object({
      epoch: z.number().int(),
      step: z.number().int(),
      trainReward: z.number().nullable().describe("mean reward of the step's rollouts"),
      librarySize: z.number().int().describe("after the step's update"),
      tokens: z.number().int(),
    }),
  ),
  epochs: z.array(EpochEvaluationSchema).describe("epoch 0 (the starting library) first"),
  promotion: PromotionSchema.nullable(),
});
export type Curve = z.infer<typeof CurveSchema>;

/** What hindsight did over a run (src/core/practice/hindsight.ts); each step's record has its own part. */
export const HindsightTotalsSchema = z.object({
  calls: z.number().int().describe("hindsight learner calls made for groups whose attempts all failed"),
  proposals: z.number().int().describe("hindsight proposals that entered a batch update"),
  refusedLeaks: z.number().int().describe("hindsight lessons refused because they stated their task's reference answer"),
  applied: z.number().int().describe("batch-plan operations traced to hindsight proposals"),
  inLibrary: z.number().int().describe("lessons of the run's library whose latest change came from hindsight"),
});
export type HindsightTotals = z.infer<typeof HindsightTotalsSchema>;

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
  hindsight: HindsightTotalsSchema,
  promotion: PromotionSchema.nullable(),
  evaluations: z.array(EpochEvaluationSchema),
  stoppedEarly: z.string().nullable().describe("why a `best` run stopped before its last epoch"),
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
