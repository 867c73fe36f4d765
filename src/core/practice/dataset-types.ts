import { z } from "zod";
import { VerifierSchema } from "../verifiers/schema";
import { EpisodeOutcomeSchema, type EpisodeOutcome } from "../q-learning";
import { idString, nameString } from "../text-rules";

/** Where a request names a dataset: by its id or by its name, as the CLI always took it. */
export const DatasetRefSchema = idString(200).describe(
  "The dataset's id (`ds_…`) or its name: the dataset with that id, else the one with that name (a name several datasets share is refused)",
);

export const TASK_TEXT_MAX = 16_384;
export const TASK_METADATA_MAX_BYTES = 4096;
/** Tasks per JSON upload; larger uploads use NDJSON. */
export const TASKS_PER_JSON_UPLOAD = 500;
/** Tasks per NDJSON upload: each costs D1 statements, and a Worker invocation has a bounded number of them. */
export const TASKS_PER_NDJSON_UPLOAD = 5000;
/** Body limit of dataset uploads (JSON and NDJSON), above the global one: 500 tasks of 16 KB do not fit in 1 MB. */
export const DATASET_UPLOAD_MAX_BYTES = 16 * 1024 * 1024;
export const NDJSON_TYPE_RE = /^application\/x-ndjson\b/i;
/** The routes that take dataset uploads, for the body-limit and media-type middleware. */
export const DATASET_UPLOAD_PATH_RE = /^\/v1\/datasets(\/[^/]+\/tasks)?$/;
export const DATASET_TASKS_PATH_RE = /^\/v1\/datasets\/[^/]+\/tasks$/;

export const DEFAULT_HOLDOUT_FRACTION = 0.2;

export const TaskIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/,
    "Task ids are 1-128 chars of letters, digits, '.', '_', ':', '/' and '-', starting with a letter or digit",
  );

/** train: what practice learns from; validation: what chooses among a run's epochs; holdout: what judges the chosen library, once. */
export const SplitSchema = z.enum(["train", "validation", "holdout"]);
export type Split = z.infer<typeof SplitSchema>;

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

export const DatasetTaskInputSchema = z
  .object({
    id: TaskIdSchema.optional().describe("Unique per dataset; re-uploading an id changes nothing. Default: a hash of task and groundTruth"),
    task: z
      .string()
      .max(TASK_TEXT_MAX)
      .refine((t) => t.trim().length > 0, "The task must not be blank"),
    groundTruth: z.string().max(TASK_TEXT_MAX).nullable().optional(),
    metadata: z
      .record(z.string(), z.unknown())
      .refine(
        (m) => utf8Bytes(JSON.stringify(m)) <= TASK_METADATA_MAX_BYTES,
        `Metadata is limited to ${TASK_METADATA_MAX_BYTES} bytes of JSON`,
      )
      .nullable()
      .optional(),
    split: SplitSchema.optional().describe(
      "Default: decided by a hash of the id and the dataset's holdoutFraction (train or holdout; validation tasks are labelled, or a run that needs them sets some train tasks aside)",
    ),
  })
  .strict();
export type DatasetTaskInput = z.infer<typeof DatasetTaskInputSchema>;

const datasetFields = {
  name: nameString(200),
  description: z.string().trim().max(2000).optional(),
  holdoutFraction: z
    .number()
    .min(0)
    .lt(1)
    .default(DEFAULT_HOLDOUT_FRACTION)
    .describe("Share of tasks without an explicit split that go to the holdout split"),
  verifier: VerifierSchema.optional().describe("The default verifier of runs on this dataset"),
};

export const DatasetCreateSchema = z
  .object({ ...datasetFields, tasks: z.array(DatasetTaskInputSchema).max(TASKS_PER_JSON_UPLOAD).optional() })
  .strict();
export type DatasetCreate = z.infer<typeof DatasetCreateSchema>;

export const TaskUploadSchema = z
  .object({
    tasks: z
      .array(DatasetTaskInputSchema)
      .min(1)
      .max(TASKS_PER_JSON_UPLOAD, `At most ${TASKS_PER_JSON_UPLOAD} tasks per JSON request; send more as application/x-ndjson`),
  })
  .strict();

export const FromEpisodesSchema = z
  .object({
    ...datasetFields,
    since: z.number().int().nonnegative().optional().describe("Only episodes that ended at or after this time (epoch ms)"),
    outcomes: z
      .array(EpisodeOutcomeSchema)
      .min(1)
      .max(4)
      .optional()
      .describe("Only episodes with these outcomes (default: all; abandoned episodes never count)"),
    limit: z.number().int().min(1).max(2000).default(500).describe("The most recently ended episodes first"),
  })
  .strict();
export type FromEpisodes = z.infer<typeof FromEpisodesSchema>;

/** Which ended episodes of an agent a dataset is built from. */
export interface EpisodeDatasetQuery {
  since?: number;
  outcomes?: EpisodeOutcome[];
  limit: number;
}

/** The ended episodes an agent offers for a dataset. */
export interface EpisodeForDataset {
  id: string;
  task: string;
  outcome: string;
  answer: string | null;
  endedAt: number;
}

export const DatasetSchema = z.object({
  datasetId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  holdoutFraction: z.number(),
  verifier: VerifierSchema.nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Dataset = z.infer<typeof DatasetSchema>;

export const DatasetCountsSchema = z.object({
  train: z.number().int(),
  validation: z.number().int(),
  holdout: z.number().int(),
  total: z.number().int(),
  withGroundTruth: z.number().int(),
});
export type DatasetCounts = z.infer<typeof DatasetCountsSchema>;

export const DatasetDetailSchema = DatasetSchema.extend({ counts: DatasetCountsSchema });
export type DatasetDetail = z.infer<typeof DatasetDetailSchema>;

export const DatasetTaskSchema = z.object({
  id: z.string(),
  task: z.string(),
  groundTruth: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  split: SplitSchema,
  createdAt: z.number().int(),
});
export type DatasetTask = z.infer<typeof DatasetTaskSchema>;

export const UploadResultSchema = z.object({
  inserted: z.number().int().describe("New tasks stored"),
  unchanged: z.number().int().describe("Tasks already stored with the same content"),
  conflictCount: z.number().int().describe("Ids already stored with other content; the stored task is kept"),
  conflicts: z.array(z.string()).describe("The first 100 conflicting ids"),
});
export type UploadResult = z.infer<typeof UploadResultSchema>;

export interface LineIssue {
  line: number;
  path: string;
  message: string;
}

/**
 * Parses an NDJSON upload, one task a line (blank lines are skipped; line numbers count from 1).
 * Every line is checked before anything is stored, so a bad line rejects the whole upload.
 */
export function parseTaskLines(
  text: string,
  maxIssues = 20,
): { ok: true; tasks: DatasetTaskInput[] } | { ok: false; tooMany: boolean; issues: LineIssue[] } {
  const tasks: DatasetTaskInput[] = [];
  const issues: LineIssue[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && issues.length < maxIssues; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    if (tasks.length + issues.length >= TASKS_PER_NDJSON_UPLOAD) return { ok: false, tooMany: true, issues: [] };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      issues.push({ line: i + 1, path: "", message: "Not valid JSON" });
      continue;
    }
    const parsed = DatasetTaskInputSchema.safeParse(value);
    if (parsed.success) tasks.push(parsed.data);
    else
      for (const issue of parsed.error.issues) issues.push({ line: i + 1, path: issue.path.map(String).join("."), message: issue.message });
  }
  return issues.length ? { ok: false, tooMany: false, issues: issues.slice(0, maxIssues) } : { ok: true, tasks };
}
