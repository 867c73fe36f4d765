import { z } from "zod";
import { EpisodeOutcomeSchema } from "./q-learning";
import { idString } from "./text-rules";
import { MAX_TOKEN_CHARS } from "./retrieval-token";
import { MetadataSchema, metadataString } from "./served-fields";
import { queryLimit, queryNumber } from "./query-params";

export const EXPERIENCE_MAX_CHARS = 600;
export const TRACE_SUMMARY_MAX_CHARS = 8000;

export const SourceSchema = z.enum(["practice", "live", "manual", "import"]);
export type Source = z.infer<typeof SourceSchema>;
/**
 * `quarantined` (the screening step flagged it) and `pending` (waiting for the LLM safety review)
 * are held: kept with their reason, never retrieved or injected. Only the service sets them, and
 * only the review or an admin key releases them.
 */
export const ExperienceStatusSchema = z.enum(["active", "archived", "quarantined", "pending"]);
export type ExperienceStatus = z.infer<typeof ExperienceStatusSchema>;
/** A case is held like an experience: its task and answer are injected into prompts as past cases. */
export const CaseStatusSchema = z.enum(["active", "archived", "quarantined", "pending"]);
export const HELD_STATUSES = ["quarantined", "pending"] as const;
export const isHeld = (status: string) => status === "quarantined" || status === "pending";
export const MemoryKindSchema = z.enum(["experience", "case"]);
export type MemoryKind = z.infer<typeof MemoryKindSchema>;

export const TagSchema = metadataString(64).min(1);
const tags = z.array(TagSchema).max(32);
const keywords = z.array(z.string().trim().min(1).max(64)).max(32);

export const ProvenanceSchema = z
  .object({
    runId: idString(128).optional(),
    episodeId: idString(128).optional(),
    keyId: idString(128).optional(),
    importedFrom: metadataString(200).optional(),
    note: metadataString(500).optional(),
    agentId: idString(64).optional().describe("The agent a shared lesson was shared from"),
    experienceId: idString(64).optional().describe("The lesson's id in that agent's library"),
    runItemId: idString(128)
      .optional()
      .describe("The lesson's id in its practice run's library (`px_…`, as the run's steps and diff name it), when a run created it"),
    origin: z
      .enum(["contrast", "hindsight"])
      .optional()
      .describe(
        "how a practice run learned the lesson: from a group whose rewards differed, or in hindsight from a group whose attempts all failed",
      ),
  })
  .strict();
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** Longest `when` text kept: a sentence or two of situations, not a second lesson. */
export const WHEN_MAX_CHARS = 300;

/** A learner's `when` on one line and within bounds (a model that writes too much loses the tail, not the lesson); none when empty. */
export function clipWhen(when: string | undefined | null): string | undefined {
  const w = (when ?? "").replace(/\s+/g, " ").slice(0, WHEN_MAX_CHARS).trim();
  return w || undefined;
}

const whenText = z
  .string()
  .trim()
  .min(1)
  .max(WHEN_MAX_CHARS)
  .describe("The situations the lesson applies to, in the words an agent would use (searched by retrieval, never shown in /prompt)");

/** The library-managed content of an experience: what versions record and rollback restores. */
export const ExperienceContentSchema = z.object({
  text: z.string().trim().min(1).max(EXPERIENCE_MAX_CHARS),
  pattern: z.string().trim().max(200).nullable().default(null),
  keywords: keywords.default([]),
  when: whenText.nullable().default(null),
  tags: tags.default([]),
  domain: metadataString(64).nullable().default(null),
  source: SourceSchema.default("manual"),
  status: ExperienceStatusSchema.default("active"),
  pinned: z.boolean().default(false),
  importance: z.number().min(0).max(1).default(0.5),
  metadata: MetadataSchema.default({}),
});
export type ExperienceContent = z.infer<typeof ExperienceContentSchema>;

export const ExperienceCreateSchema = ExperienceContentSchema.extend({
  q: z.number().min(-1).max(1).optional(),
  provenance: ProvenanceSchema.optional(),
}).strict();
export type ExperienceCreate = z.input<typeof ExperienceCreateSchema>;

export const ExperiencePatchSchema = z
  .object({
    text: ExperienceContentSchema.shape.text,
    pattern: z.string().trim().max(200).nullable(),
    keywords,
    when: whenText.nullable(),
    tags,
    domain: metadataString(64).nullable(),
    status: ExperienceStatusSchema,
    pinned: z.boolean(),
    importance: z.number().min(0).max(1),
    metadata: MetadataSchema.describe("Replaces the whole metadata; {} clears it"),
  })
  .partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "Give at least one field to change" });
export type ExperiencePatch = z.infer<typeof ExperiencePatchSchema>;

/** One operation of a library change; a batch of them becomes one version. */
export const LibraryOperationSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("create"), experience: ExperienceCreateSchema }).strict(),
  z.object({ op: z.literal("update"), id: idString(64), patch: ExperiencePatchSchema }).strict(),
  z.object({ op: z.literal("archive"), id: idString(64) }).strict(),
  z.object({ op: z.literal("delete"), id: idString(64) }).strict(),
]);
export type LibraryOperation = z.input<typeof LibraryOperationSchema>;

export const LibraryBatchSchema = z
  .object({
    reason: z.string().trim().min(1).max(500),
    operations: z.array(LibraryOperationSchema).min(1).max(500),
  })
  .strict();

export const CountsSchema = z.object({
  retrieved: z.number().int(),
  cited: z.number().int(),
  uncited: z.number().int(),
  successes: z.number().int(),
  failures: z.number().int(),
});

export const QHistoryEntrySchema = z.object({
  at: z.number().int(),
  q: z.number(),
  delta: z.number(),
  reward: z.number(),
  episodeId: z
    .string()
    .nullable()
    .optional()
    .describe("The episode whose reward made this change; null for a reward naming memories or a retrieval outside an episode"),
  retrievalId: z
    .string()
    .nullable()
    .optional()
    .describe("The retrieval the reward named, when it named one (a token by the `ret_…` id it carries)"),
});

const TrialArmSchema = z.object({
  prompts: z.number().int().describe("Rewarded prompts (write keys only, one outcome per retrieval) in this arm"),
  successes: z.number().int().describe("Of those, how many ended in success at the first try (no failed attempt in the episode)"),
});

/** What decides a lesson on probation (src/core/probation.ts; docs/learning.md, "Lessons on probation"). */
export const LessonEvidenceSchema = z
  .object({
    shown: TrialArmSchema.describe("Matching prompts that showed the lesson"),
    notShown: TrialArmSchema.describe("Matching prompts that, by the seeded draw, did not"),
    difference: z
      .object({ estimate: z.number(), low: z.number(), high: z.number() })
      .nullable()
      .describe(
        "First-try success rate shown minus not shown (Beta posteriors), with its 99% interval; null before both arms have an outcome",
      ),
    verdict: z
      .enum(["exploring", "graduated", "retired", "inconclusive"])
      .nullable()
      .describe(
        "exploring: on probation, in a share of the prompts it matches; graduated: the interval cleared 0, it left probation; retired: the interval fell below 0, it was archived; inconclusive: no verdict after the most exposures a trial allows, held out of prompts; null: never on trial",
      ),
    reason: z.string().nullable().describe("The evidence at the verdict, in words"),
    decidedAt: z.number().int().nullable(),
  })
  .describe("How the lesson's trial in prompts went: the outcomes that graduated or retired it, or that it is still being explored on");

export const ExperienceSchema = ExperienceContentSchema.extend({
  id: z.string(),
  label: z.string().nullable().describe("G0…Gn among active experiences; null when not active"),
  probation: z
    .boolean()
    .describe(
      "A lesson whose worth is not known yet (live-learned or rewritten): retrievable, and shown in a share of the /prompt blocks it matches until the evidence graduates or retires it",
    ),
  q: z.number(),
  counts: CountsSchema,
  exposures: z.number().int().describe("Rewarded prompts that showed the lesson while it was on probation (evidence.shown.prompts)"),
  evidence: LessonEvidenceSchema,
  provenance: ProvenanceSchema.nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  lastUsedAt: z.number().int().nullable(),
  embedding: z.object({ model: z.string().nullable(), current: z.boolean() }),
  qHistory: z.array(QHistoryEntrySchema).optional(),
});
export type Experience = z.infer<typeof ExperienceSchema>;

/** What adding a lesson answers besides it: the active lessons near enough to be the same one. */
export const SimilarLessonsSchema = z
  .array(z.object({ id: z.string(), text: z.string(), sim: z.number() }))
  .describe(
    "Active lessons so similar to this one that live learning would treat them as the same lesson: merge, archive or keep them deliberately",
  );

export const CaseCreateSchema = z
  .object({
    task: z.string().trim().min(1).max(4000),
    traceSummary: z.string().max(TRACE_SUMMARY_MAX_CHARS).nullable().default(null),
    answer: z.string().max(8000).nullable().default(null),
    reward: z.number().min(-1).max(1),
    label: z.enum(["positive", "negative"]).optional(),
    toolsUsed: z.array(metadataString(128).min(1)).max(64).default([]),
    tags: tags.default([]),
    episodeId: idString(128).nullable().default(null),
    metadata: MetadataSchema.default({}),
  })
  .strict();
export type CaseCreate = z.input<typeof CaseCreateSchema>;

export const CasePatchSchema = z
  .object({
    tags,
    label: z.enum(["positive", "negative"]),
    status: CaseStatusSchema,
    answer: z.string().max(8000).nullable(),
    traceSummary: z.string().max(TRACE_SUMMARY_MAX_CHARS).nullable(),
    metadata: MetadataSchema.describe("Replaces the whole metadata; {} clears it"),
  })
  .partial()
  .strict()
  .refine((p) => Object.keys(p).length > 0, { message: "Give at least one field to change" });
export type CasePatch = z.infer<typeof CasePatchSchema>;

export const CaseSchema = z.object({
  id: z.string(),
  task: z.string(),
  traceSummary: z.string().nullable(),
  answer: z.string().nullable(),
  reward: z.number(),
  label: z.enum(["positive", "negative"]),
  toolsUsed: z.array(z.string()),
  tags: z.array(z.string()),
  episodeId: z.string().nullable(),
  metadata: MetadataSchema,
  status: CaseStatusSchema,
  q: z.number(),
  counts: CountsSchema,
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  lastUsedAt: z.number().int().nullable(),
});
export type Case = z.infer<typeof CaseSchema>;

/** Which experiences or cases a list returns; parsed from a query string (numbers arrive as text). */
export const ListFilterSchema = z.object({
  source: SourceSchema.optional(),
  tag: z.string().max(64).optional(),
  status: z.enum(["active", "archived", "quarantined", "pending", "all"]).default("active"),
  minQ: queryNumber(z.number().min(-1).max(1)).optional(),
  contains: z.string().max(200).optional(),
  limit: queryLimit(200, 50),
  cursor: z.string().max(200).optional(),
});
export type ListFilter = z.output<typeof ListFilterSchema>;

/**
 * Which memories a retrieval may choose from, applied before ranking: the top k are the best of
 * the matching items. Every given condition must hold.
 */
export const MemoryFilterSchema = z
  .object({
    metadata: MetadataSchema.optional().describe('Each given key must be present with this exact value (same type: 1 does not match "1")'),
    tags: z.array(TagSchema).min(1).max(16).optional().describe("Any of these tags (an item carrying at least one of them)"),
    domain: metadataString(64)
      .min(1)
      .optional()
      .describe("Lessons of this domain; cases have no domain, so a domain filter leaves only lessons"),
    createdAfter: z.number().int().min(0).optional().describe("Created strictly after this time (epoch milliseconds, like `createdAt`)"),
    usedAfter: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("Last retrieved strictly after this time (epoch milliseconds, like `lastUsedAt`); never-used items do not match"),
  })
  .strict();
export type MemoryFilter = z.infer<typeof MemoryFilterSchema>;

export const RewardRequestSchema = z
  .object({
    retrievalId: idString(MAX_TOKEN_CHARS)
      .optional()
      .describe(
        "The `retrievalId` a retrieve or prompt answered: a signed token (`rt1.…`), or the `ret_…` id of a retrieval recorded in an episode",
      ),
    episodeId: idString(128).optional(),
    memoryIds: z.array(idString(64)).min(1).max(500).optional(),
    outcome: EpisodeOutcomeSchema.optional(),
    reward: z.number().min(-1).max(1).optional(),
    quality: z.number().min(0).max(1).optional(),
    citedIds: z.array(idString(64)).max(500).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const targets = [r.retrievalId, r.episodeId, r.memoryIds].filter((x) => x !== undefined).length;
    if (targets !== 1)
      ctx.addIssue({ code: "custom", message: "Give exactly one of retrievalId, episodeId, memoryIds", path: ["retrievalId"] });
    if (r.outcome === undefined && r.reward === undefined) {
      ctx.addIssue({ code: "custom", message: "Give an outcome or a reward", path: ["outcome"] });
    }
  });
export type RewardRequest = z.infer<typeof RewardRequestSchema>;

export const RewardResultSchema = z.object({
  reward: z.number(),
  updated: z.array(
    z.object({
      id: z.string(),
      libraryId: z.string().optional().describe("A shared library's lesson: the Q is this agent's own for it"),
      kind: MemoryKindSchema,
      qBefore: z.number(),
      q: z.number(),
      cited: z.boolean(),
    }),
  ),
  uncited: z.array(z.string()),
  skipped: z
    .array(z.string())
    .optional()
    .describe(
      "Memories the reward reached that are not active (held for review, quarantined or archived): their Q does not move and they learn nothing",
    ),
  replayed: z
    .boolean()
    .describe("This retrieval (or Idempotency-Key) was rewarded before with the same request: the first result, and nothing moved"),
});
export type RewardResult = z.infer<typeof RewardResultSchema>;

/** How many top and bottom memories analytics ranks. */
export const AnalyticsTopSchema = z.number().int().min(1).max(100);
/** The token budget of a prompt block. */
export const PromptBudgetSchema = z.number().int().min(16).max(200_000);

const QStatsSchema = z.object({
  count: z.number().int(),
  mean: z.number(),
  std: z.number(),
  histogram: z.array(z.object({ from: z.number(), to: z.number(), count: z.number().int() })),
});
const RankedMemorySchema = z.object({
  id: z.string(),
  label: z.string().nullable(),
  text: z.string(),
  q: z.number(),
  retrieved: z.number().int(),
  cited: z.number().int(),
});
const SuccessRateSchema = z.object({
  items: z.number().int(),
  successes: z.number().int(),
  failures: z.number().int(),
  successRate: z.number().nullable(),
});

export const AnalyticsSchema = z.object({
  experiences: z.object({ counts: z.record(z.string(), z.number().int()), q: QStatsSchema }),
  cases: z.object({ counts: z.record(z.string(), z.number().int()), q: QStatsSchema }),
  top: z.array(RankedMemorySchema),
  bottom: z.array(RankedMemorySchema),
  convergence: z.object({
    window: z.number().int(),
    updates: z.number().int(),
    meanAbsDeltaQ: z.number().describe("Mean |ΔQ| over the last `window` updates; near 0 means Q-values have settled"),
  }),
  retrievals: z.number().int(),
  citations: z.object({ cited: z.number().int(), uncited: z.number().int(), retrievedItems: z.number().int() }),
  successRate: z.object({
    bySource: z.array(SuccessRateSchema.extend({ source: z.string() })),
    byTag: z.array(SuccessRateSchema.extend({ tag: z.string() })),
    byOrigin: z
      .array(SuccessRateSchema.extend({ origin: z.string() }))
      .describe("practice lessons by how the run learned them (provenance.origin): contrast or hindsight"),
  }),
  libraryVersion: z.number().int(),
});
export type Analytics = z.infer<typeof AnalyticsSchema>;
