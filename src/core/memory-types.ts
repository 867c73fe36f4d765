import { z } from "zod";
import { PhaseSchema } from "./scoring";
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

const tag = metadataString(64).min(1);
const tags = z.array(tag).max(32);
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
    tags: z.array(tag).min(1).max(16).optional().describe("Any of these tags (an item carrying at least one of them)"),
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

/** Read-your-writes: the `libraryVersion` a write answered. */
export const MinVersionSchema = z
  .number()
  .int()
  .min(0)
  .describe(
    "Answer from library version at least this one: pass the `libraryVersion` a write answered to read what it wrote (read-your-writes). Without it an answer may lag the agent's memory by the deployment's staleness bound (2 s by default). A version the library has not reached within 2 s is a 409 `version-not-reached`",
  );

export const ConsistencySchema = z
  .enum(["bounded", "strong"])
  .describe(
    "`bounded` (the default): ranked where the request lands, from a snapshot of the agent's memory at most the staleness bound old. `strong`: ranked by the agent's memory itself, at its current state",
  );

/** Why a read the edge could have served was answered by the agent's memory itself (see docs/concepts.md, "Reads at the edge"). */
export const READ_FALLBACKS = [
  "strong",
  "episode",
  "query-words",
  "embedder",
  "too-large",
  "remote-index",
  "token-size",
  "subscriptions",
  "pinned-subscription",
] as const;

/** What every read answer says about the state it was ranked on. */
export const ReadFreshnessSchema = z.object({
  libraryVersion: z.number().int().describe("The library version this answer was ranked on"),
  snapshotAgeMs: z
    .number()
    .int()
    .min(0)
    .describe(
      "How long before this answer the agent's memory last confirmed that the snapshot it was ranked from was current; 0 when the agent's memory ranked it",
    ),
  servedFrom: z
    .enum(["edge", "object"])
    .describe(
      "`edge`: ranked by the Worker that answered, from its snapshot of the agent's memory; `object`: ranked by the agent's memory itself",
    ),
  fallbackReason: z
    .enum(READ_FALLBACKS)
    .optional()
    .describe(
      "Why the agent's memory ranked a read the edge could have served: asked for (`strong`), an episode's read, a query word outside ASCII, an embedding unlike the snapshot's, a library too large or searched remotely, a retrieval too large for a token, a subscribed shared library whose snapshot the edge cannot rank from (`subscriptions`: too large, searched remotely or embedded by another model), a subscription pinned to a library version (`pinned-subscription`)",
    ),
});
export type ReadFreshness = z.infer<typeof ReadFreshnessSchema>;
export type ReadFallback = (typeof READ_FALLBACKS)[number];

export const RetrieveRequestSchema = z
  .object({
    query: z.string().trim().min(1, "query must not be empty").max(8000),
    phase: PhaseSchema.optional(),
    lambda: z.number().min(0).max(1).optional(),
    k1: z.number().int().min(1).max(500).optional(),
    k2: z.number().int().min(1).max(100).optional(),
    threshold: z.number().min(-1).max(1).optional(),
    kinds: z.array(MemoryKindSchema).min(1).max(2).optional(),
    tags: z.array(tag).max(16).optional().describe("Any of these tags; the same as `filter.tags`, kept for older clients"),
    filter: MemoryFilterSchema.optional(),
    episodeId: idString(128).optional(),
    minVersion: MinVersionSchema.optional(),
    consistency: ConsistencySchema.optional(),
  })
  .strict()
  .refine((r) => !(r.tags?.length && r.filter?.tags), {
    message: "Give tags in `filter.tags` only, not both there and in `tags`",
    path: ["tags"],
  });
export type RetrieveRequest = z.infer<typeof RetrieveRequestSchema>;

export const RetrievedItemSchema = z.object({
  id: z.string(),
  libraryId: z.string().optional().describe("The shared library the lesson comes from; absent for the agent's own memories"),
  kind: MemoryKindSchema,
  label: z.string().nullable(),
  probation: z
    .boolean()
    .describe(
      "A lesson whose worth is not known yet: retrievable, and shown in a share of the /prompt blocks it matches until the evidence graduates or retires it",
    ),
  text: z.string(),
  metadata: MetadataSchema.describe("The item's metadata, as stored; it is never part of `text`"),
  sim: z
    .number()
    .describe(
      "Cosine similarity of the query and the item under the active embedder (token-set similarity while the item has no vector of it)",
    ),
  lexical: z
    .number()
    .min(0)
    .describe(
      "BM25 score of the item for the query's words; 0 when it shares none. BM25 weighs a word by its rarity, so in a small library a word most memories share scores near 0 even on an exact hit: `channels` says whether the lexical channel found the item",
    ),
  relevance: z.number().min(0).max(1).describe("The vector and lexical channels fused by reciprocal rank: 1 when both rank the item first"),
  baseRelevance: z
    .number()
    .min(0)
    .max(1)
    .describe(
      "How well the item's own content matches the query, in each channel relative to the best candidate (1: best in every channel). Learned signals (Q, usage, the re-ranker) never carry an item past one its own content ranks above it whose base relevance is more than 0.25 higher",
    ),
  simZ: z.number().describe("z-score of relevance among the candidates"),
  q: z.number(),
  qZ: z.number(),
  lambda: z.number(),
  score: z
    .number()
    .describe(
      "(1−λ)·simZ + λ·qZ, plus what the learned re-ranker adds; when neither relevance nor Q varies among the candidates (a lone candidate), every z is 0 and it is (1−λ)·relevance + λ·q",
    ),
  channels: z
    .array(z.enum(["vector", "lexical"]))
    .describe(
      "Every channel that found the item: `vector` (similarity at or above the threshold), `lexical` (shared words); both when both did",
    ),
  match: z
    .enum(["vector", "lexical"])
    .describe(
      "vector when its similarity passed the threshold; lexical when only shared words found it (or it has no vector of the active embedder yet)",
    ),
  signals: z
    .object({
      usage: z
        .number()
        .describe("Similarity of the query to the queries this memory was rewarded for (its usage centroid); 0 when it has none"),
      phrases: z
        .number()
        .min(0)
        .max(1)
        .describe(
          "How well the query matches the best of the memory's learned phrases (the words of queries it served): word-set cosine times the phrase's weight; 0 when none matches",
        ),
      when: z
        .number()
        .optional()
        .describe("Similarity of the query to the lesson's `when` (the situations it applies to); 0 when it has none"),
      whenLexical: z.number().min(0).optional().describe("BM25 of the lesson's `when` for the query's words; 0 when they share none"),
      learned: z
        .number()
        .nullable()
        .describe("What the agent's learned re-ranker added to the score; null until it has seen enough rewards"),
    })
    .optional()
    .describe(
      "What retrieval has learned from rewards about this memory, and what its `when` matched (see GET /v1/agents/{agentId}/retriever)",
    ),
});
export type RetrievedItem = z.infer<typeof RetrievedItemSchema>;

/** What a retrieval answers for a later reward to name; docs/concepts.md, "Retrieval ids", tells the two forms apart. */
const RetrievalIdSchema = z
  .string()
  .describe(
    "Names this retrieval in a later reward (POST …/rewards `retrievalId`). Outside an episode a signed, self-contained token (`rt1.…`, at most 8,192 characters) that can be rewarded until the agent's `retention.retrievalsDays` have passed; in an episode, the `ret_…` id of the retrieval the agent recorded, which the episode's end credits.",
  );

export const RetrieveResponseSchema = z
  .object({
    retrievalId: RetrievalIdSchema,
    phase: PhaseSchema.nullable(),
    lambda: z.number(),
    candidates: z.number().int().describe("How many items passed phase A: a similarity at or above the threshold, or a shared word"),
    items: z.array(RetrievedItemSchema),
  })
  .extend(ReadFreshnessSchema.shape);
export type RetrieveResponse = z.infer<typeof RetrieveResponseSchema>;
/** A retrieval as the agent's memory answers it; the door that served it adds where from. */
export type RetrieveAnswer = Omit<RetrieveResponse, "snapshotAgeMs" | "servedFrom" | "fallbackReason">;

/** The block `/prompt` answers: what an agent puts in its context, and what it was assembled from. */
export const PromptBlockSchema = z
  .object({
    prompt: z.string(),
    mode: z.enum(["full-library", "ranked"]),
    experienceIds: z.array(z.string()),
    caseIds: z.array(z.string()),
    exploredIds: z
      .array(z.string())
      .describe(
        "Lessons on probation this block shows to test them (they are in `experienceIds` too): the episode's outcome is their evidence",
      ),
    retrievalId: RetrievalIdSchema,
    estimatedTokens: z.number().int(),
  })
  .extend(ReadFreshnessSchema.shape);

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
