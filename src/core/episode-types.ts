import { z } from "zod";
import { OUTCOMES } from "./q-learning";
import { idString, nameString } from "./text-rules";
import { metadataString } from "./served-fields";
import { PhaseSchema } from "./scoring";
import { MemoryKindSchema } from "./memory-types";
import { FEATURES } from "./reranker";

/** Flat JSON values: recursive JSON types are too deep for Durable Object RPC type mapping. */
const FlatRecordSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

/** Metadata a client sends is never served, so it is only bounded and kept free of control and format characters. */
const METADATA_MAX_ENTRIES = 32;
const METADATA_VALUE_MAX = 1000;
const metadataKey = metadataString(64).min(1);
const metadataText = metadataString(METADATA_VALUE_MAX);
const FlatRecordInputSchema = FlatRecordSchema.refine(
  (r) => Object.keys(r).length <= METADATA_MAX_ENTRIES,
  `At most ${METADATA_MAX_ENTRIES} entries`,
)
  .refine(
    (r) => Object.keys(r).every((k) => metadataKey.safeParse(k).success),
    "Keys are 1-64 characters without control or format characters",
  )
  .refine(
    (r) => Object.values(r).every((v) => typeof v !== "string" || metadataText.safeParse(v).success),
    `Text values are at most ${METADATA_VALUE_MAX} characters without control or format characters`,
  );

/**
 * How an episode can end: a task outcome, which rewards and teaches, or `abandoned`, which says the
 * work stopped for a reason outside the task (a model API's 404, a network error, a crash in the
 * agent's own code). An abandoned episode is no evidence about the task or what was retrieved for
 * it, so it changes no Q, builds no case, queues no extraction and counts as no failure.
 */
export const EpisodeOutcomeSchema = z.enum([...OUTCOMES, "abandoned"]);
export type EpisodeOutcome = z.infer<typeof EpisodeOutcomeSchema>;

export const EPISODE_TASK_MAX = 4000;
export const ATTEMPT_TEXT_MAX = 4000;
export const ERROR_TEXT_MAX = 50_000;

export const EpisodeCreateSchema = z
  .object({
    task: z.string().trim().min(1).max(EPISODE_TASK_MAX),
    metadata: FlatRecordInputSchema.optional(),
  })
  .strict();
export type EpisodeCreate = z.infer<typeof EpisodeCreateSchema>;

export const ToolCallSchema = z
  .object({
    name: metadataString(128).min(1),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    error: z.string().max(ERROR_TEXT_MAX).optional(),
  })
  .strict();

export const AttemptCreateSchema = z
  .object({
    description: z.string().trim().min(1).max(ATTEMPT_TEXT_MAX),
    ok: z.boolean(),
    error: z.string().max(ERROR_TEXT_MAX).optional(),
    toolCalls: z.array(ToolCallSchema).max(100).optional(),
    infrastructure: z
      .boolean()
      .optional()
      .describe(
        "The attempt failed for a reason outside the task (a model API's error, a network failure): kept in the episode's record, never in a case's trace, a lesson or the extraction",
      ),
  })
  .strict();
export type AttemptCreate = z.infer<typeof AttemptCreateSchema>;

export const EpisodeEndSchema = z
  .object({
    outcome: EpisodeOutcomeSchema.describe(
      "`abandoned` when the work stopped for a reason outside the task: no reward, no case, no extraction",
    ),
    score: z.number().min(0).max(1).optional().describe("Quality in [0,1]; multiplies the outcome's reward"),
    answer: z.string().max(8000).optional(),
    citedIds: z.array(idString(64)).max(500).optional(),
  })
  .strict();
export type EpisodeEnd = z.infer<typeof EpisodeEndSchema>;

export const AttemptSchema = z.object({
  n: z.number().int(),
  description: z.string(),
  ok: z.boolean(),
  error: z.string().nullable().describe("Digest of the error (type @ file:line: message), secrets redacted"),
  toolCalls: z.array(z.string()),
  infrastructure: z.boolean().describe("A failure outside the task: left out of the case's trace and the extraction"),
  at: z.number().int(),
});

export type Attempt = z.infer<typeof AttemptSchema>;

export const EpisodeResultSchema = z.object({
  reward: z.number(),
  rewarded: z.array(z.object({ id: z.string(), q: z.number() })),
  caseId: z.string().nullable(),
  case: z
    .object({
      id: z.string(),
      status: z.enum(["active", "archived", "quarantined", "pending"]),
      reason: z.string().nullable().describe("Why the case is held (quarantined or pending review); null when it is not"),
    })
    .nullable()
    .optional()
    .describe("The case the episode stored, as it stands now: a held case is never retrieved, and this says so and why"),
  extraction: z
    .enum(["queued", "running", "done", "skipped", "failed", "not-needed"])
    .describe(
      "Live extraction of a lesson from the episode: `not-needed` without both a failure and a success; otherwise its job's status (see `taught`)",
    ),
  jobId: z.string().nullable(),
  taught: z
    .object({
      lessonIds: z.array(z.string()).describe("The lessons the extraction added or changed; empty when it learned nothing"),
      operation: z.string().nullable().describe("What the extraction decided: add, update, delete, none"),
      libraryVersion: z.number().int().nullable(),
      reason: z.string().nullable().describe("Why, in the extraction's words (also why nothing was learned)"),
    })
    .nullable()
    .optional()
    .describe("What the episode's extraction taught, once its job is done; null before"),
});
export type EpisodeResult = z.infer<typeof EpisodeResultSchema>;

export const EpisodeSchema = z.object({
  id: z.string(),
  task: z.string(),
  metadata: FlatRecordSchema.nullable(),
  sessionId: z.string().nullable(),
  status: z.enum(["open", "ended"]),
  outcome: EpisodeOutcomeSchema.nullable(),
  score: z.number().nullable(),
  answer: z.string().nullable(),
  attempts: z.array(AttemptSchema),
  result: EpisodeResultSchema.nullable(),
  createdAt: z.number().int(),
  endedAt: z.number().int().nullable(),
});
export type Episode = z.infer<typeof EpisodeSchema>;

/** A retrieval made for an episode, as it was ranked when the agent asked. */
export const EpisodeRetrievalSchema = z.object({
  retrievalId: z.string(),
  at: z.number().int(),
  query: z.string(),
  phase: PhaseSchema.nullable(),
  lambda: z.number(),
  items: z
    .array(
      z.object({
        id: z.string(),
        kind: MemoryKindSchema,
        label: z.string().nullable().describe("The label it was shown under (labels shift as the library changes)"),
        score: z.number().nullable(),
        shownWithLibrary: z.boolean().describe("Shown as part of the whole library, not selected for the query: it learns only when cited"),
        signals: z
          .record(z.enum(FEATURES), z.number())
          .nullable()
          .describe(
            "The retrieval signals of the item when shown, as the learned re-ranker reads them (BM25 squashed to [0,1), recency decays over 14 days)",
          ),
      }),
    )
    .describe("What it returned, in rank order"),
  rewarded: z.boolean().describe("Whether a reward (the episode's end, or one naming the retrieval) has credited it"),
});
export type EpisodeRetrieval = z.infer<typeof EpisodeRetrievalSchema>;

/** A finished session posted by an agent platform; it becomes an episode through the same pipeline. */
export const SessionEventSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("message"),
      role: z.enum(["user", "assistant", "system", "tool"]),
      content: z.string().max(ERROR_TEXT_MAX),
    })
    .strict(),
  z
    .object({
      type: z.literal("tool_call"),
      name: metadataString(128).min(1),
      input: z.unknown().optional(),
      result: z.unknown().optional(),
      error: z.string().max(ERROR_TEXT_MAX).optional(),
    })
    .strict(),
]);

export const SessionEndSchema = z
  .object({
    tenantId: idString(64),
    agentId: idString(64),
    sessionId: nameString(200),
    task: z.string().trim().min(1).max(EPISODE_TASK_MAX),
    events: z.array(SessionEventSchema).max(2000),
    outcome: EpisodeOutcomeSchema,
    score: z.number().min(0).max(1).optional(),
    answer: z.string().max(8000).optional(),
  })
  .strict();
export type SessionEnd = z.infer<typeof SessionEndSchema>;

export const JobStatusSchema = z.enum(["queued", "running", "retrying", "done", "skipped", "failed"]);
export const JobSchema = z.object({
  id: z.string(),
  type: z.string(),
  status: JobStatusSchema,
  reason: z.string().nullable(),
  episodeId: z.string().nullable(),
  attempts: z.number().int(),
  result: FlatRecordSchema.nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Job = z.infer<typeof JobSchema>;
