/** The shapes of a read: a retrieval or prompt request, what it answers, and how fresh the answer is. */
import { z } from "zod";
import { idString } from "./text-rules";
import { MemoryFilterSchema, MemoryKindSchema, TagSchema } from "./memory-types";
import { PhaseSchema } from "./scoring";
import { MetadataSchema } from "./served-fields";

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
  "snapshot-unavailable",
  "snapshot-loading",
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
      "Why the agent's memory ranked a read the edge could have served: asked for (`strong`), an episode's read, a query word outside ASCII, an embedding unlike the snapshot's, a library too large or searched remotely, a retrieval too large for a token, a subscribed shared library whose snapshot the edge cannot rank from (`subscriptions`: too large, searched remotely or embedded by another model), a subscription pinned to a library version (`pinned-subscription`), the Worker failed to fetch or apply the snapshot (`snapshot-unavailable`, for the next 5 s), another read of the same Worker is fetching the snapshot (`snapshot-loading`)",
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
    tags: z.array(TagSchema).max(16).optional().describe("Any of these tags; the same as `filter.tags`, kept for older clients"),
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
