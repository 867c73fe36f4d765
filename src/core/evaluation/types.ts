import { z } from "zod";
import { VerifierSchema } from "../verifiers/schema";
import { DatasetRefSchema, SplitSchema } from "../practice/dataset-types";
import { IntervalSchema, PolicySchema, UsageTotalsSchema } from "../practice/run-types";
import { PairedDecisionSchema } from "./decision";
import { idString } from "../text-rules";

/** `cancelled`: stopped with the practice run it belonged to. */
export const EVALUATION_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export const EvaluationStatusSchema = z.enum(EVALUATION_STATUSES);
export type EvaluationStatus = z.infer<typeof EvaluationStatusSchema>;
export const isEvaluationDone = (s: EvaluationStatus) => s === "completed" || s === "failed" || s === "cancelled";

export const MAX_SAMPLES = 8;

/**
 * Which library an evaluation injects: a version of the agent's library (0 is the empty library,
 * the baseline without lessons) or the current library of one of the agent's practice runs.
 */
export const LibraryRefSchema = z.union([
  z.object({ version: z.number().int().min(0).describe("a library version of the agent; 0 is the empty library") }).strict(),
  z.object({ runId: idString(64).describe("a practice run of the agent: its library as it stands") }).strict(),
]);
export type LibraryRef = z.infer<typeof LibraryRefSchema>;

const seed = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);
const samples = z
  .number()
  .int()
  .min(1)
  .max(MAX_SAMPLES)
  .default(1)
  .describe("policy calls per task; a task scores the mean of its samples");

/** `POST /v1/agents/:agentId/evaluations`. */
export const EvaluationCreateSchema = z
  .object({
    datasetId: DatasetRefSchema,
    split: SplitSchema.default("holdout"),
    library: LibraryRefSchema.optional().describe("default: the agent's active library"),
    samples,
    policy: PolicySchema,
    verifier: VerifierSchema.optional(),
    seed: seed.optional(),
  })
  .strict();
export type EvaluationCreate = z.infer<typeof EvaluationCreateSchema>;

/** The evaluation as configured: the verifier resolved, a seed chosen, the library's version recorded. */
export const EvaluationConfigSchema = EvaluationCreateSchema.extend({
  library: LibraryRefSchema.nullable(),
  verifier: VerifierSchema,
  seed: z.number().int(),
  libraryVersion: z.number().int().nullable().describe("the agent's library version that was evaluated (null for a run's library)"),
  practice: z
    .object({ runId: z.string(), epoch: z.number().int() })
    .optional()
    .describe("set when a practice run evaluates one of its libraries: the library after `epoch` training epochs"),
});
export type EvaluationConfig = z.infer<typeof EvaluationConfigSchema>;

export { IntervalSchema };

export const TaskScoreSchema = z.object({
  taskId: z.string(),
  meanReward: z.number().nullable().describe("null until every sample of the task is scored"),
  rewards: z.array(z.number().nullable()),
});

export const EvaluationViewSchema = z.object({
  evaluationId: z.string(),
  agentId: z.string(),
  datasetId: z.string(),
  status: EvaluationStatusSchema,
  config: EvaluationConfigSchema,
  librarySize: z.number().int(),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  accuracy: z.number().nullable().describe("mean reward over tasks, once completed"),
  interval: IntervalSchema.nullable(),
  tasks: z.array(TaskScoreSchema),
  usage: UsageTotalsSchema,
  error: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  startedAt: z.number().int().nullable(),
  endedAt: z.number().int().nullable(),
});
export type EvaluationView = z.infer<typeof EvaluationViewSchema>;

/** `POST /v1/agents/:agentId/evaluations/compare`: two evaluations with the same tasks, samples and seed. */
export const CompareCreateSchema = z
  .object({
    datasetId: DatasetRefSchema,
    split: SplitSchema.default("holdout"),
    a: LibraryRefSchema,
    b: LibraryRefSchema,
    samples,
    policy: PolicySchema.default({ kind: "llm", temperature: 0.7 }),
    verifier: VerifierSchema.optional(),
    seed: seed.optional(),
  })
  .strict();
export type CompareCreate = z.infer<typeof CompareCreateSchema>;

const Side = z.object({
  evaluationId: z.string(),
  library: LibraryRefSchema,
  status: EvaluationStatusSchema,
  accuracy: z.number().nullable(),
  interval: IntervalSchema.nullable(),
});

export const ComparisonViewSchema = z.object({
  comparisonId: z.string(),
  datasetId: z.string(),
  status: EvaluationStatusSchema,
  samples: z.number().int(),
  seed: z.number().int(),
  a: Side,
  b: Side,
  difference: z.number().nullable().describe("accuracy of b minus accuracy of a over the paired tasks"),
  interval: IntervalSchema.nullable().describe("95% paired bootstrap interval of the difference (tasks resampled, draws paired)"),
  winner: z
    .enum(["a", "b"])
    .nullable()
    .describe("the better side by the gate's rule (the interval excludes 0 and the sign-flip test agrees), else null"),
  tasks: z
    .object({ won: z.number().int(), lost: z.number().int(), tied: z.number().int() })
    .nullable()
    .describe("tasks where b beats, loses to or ties a"),
  decision: PairedDecisionSchema.nullable().describe(
    "the paired decision with a as the incumbent and b as the candidate, once both completed",
  ),
  error: z.string().nullable(),
  createdAt: z.number().int(),
});
export type ComparisonView = z.infer<typeof ComparisonViewSchema>;
