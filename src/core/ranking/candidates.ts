/**
 * Phase A of retrieval, over any source of channel scores: the agent's object answers from its
 * storage (durable-objects/agent-memory/retrieval.ts), a Worker from a published snapshot
 * (snapshot-source.ts). Both run this code, so an edge read and an object read of the same
 * library version find the same candidates with the same scores.
 */
import { lexicalSimilarity } from "../lexical";
import { tokenize } from "../hash-embedder";
import { ftsTerms } from "../lexical";
import { fuseRanks } from "../scoring";
import type { MemoryFilter, MemoryKind } from "../memory-types";
import type { Metadata } from "../served-fields";

/**
 * How much a learned phrase counts beside the text's BM25 in the lexical channel: a full phrase
 * match (1) counts as much as a BM25 of this, a good match of one rare word.
 */
export const LEARNED_PHRASE_WEIGHT = 4;
/** A lesson's `when` is its own text about itself: its BM25 counts like that of the lesson's words. */
export const WHEN_WEIGHT = 1;
/**
 * The base relevance a memory needs, as a share of the similarity threshold, before anything it
 * learned from rewards (usage centroid, learned phrases) may bring it into the candidates: learned
 * signals re-order what is relevant on its own, they never make an unrelated memory relevant.
 */
export const LEARNED_FLOOR = 0.5;
/**
 * How far, as a share of the similarity threshold, a usage centroid may lift a memory's score in
 * the vector channel above its own similarity (the threshold sets the embedder's scale).
 */
export const LEARNED_LIFT = 0.5;

export type Channel = "vector" | "lexical";

export interface Scored {
  id: string;
  score: number;
}

export interface VectorHit {
  id: string;
  sim: number;
}

/** What hydration reads of a candidate that is active and matches the filter. */
export interface ItemFields {
  id: string;
  kind: MemoryKind;
  text: string;
  q: number;
  tags: string[];
  metadata: Metadata;
  label: string | null;
  probation: boolean;
  lastUsedAt: number | null;
}

/** What phase A knows of an item before hydration: its channel scores (0 where a channel did not find it). */
export interface Found {
  kind: MemoryKind;
  match: Channel;
  channels: Channel[];
  sim: number;
  lexical: number;
  /** Similarity of the query to the usage centroid (the queries this memory served); 0 without one. */
  usage: number;
  /** How well the query matches the memory's learned phrases (phraseMatch). */
  learned: number;
  /** Similarity of the query to the lesson's `when` (the situations it applies to); 0 without one. */
  when: number;
  /** BM25 of the lesson's `when` for the query's words. */
  whenLexical: number;
  relevance: number;
  /** The same fusion over the item's own content alone (no usage lift, no learned phrase): the order learned signals may change only within a margin. */
  content: number;
}

export type CandidateInfo = ItemFields &
  Found & {
    /** A subscribed library's lesson (src/core/shared-lessons.ts): `id` is then its sharedRef. */
    shared?: { libraryId: string; id: string };
  };

/**
 * Where phase A reads each channel from. Every method narrows to `filter` where it draws a top k,
 * and `hydrate` answers only items that are active and match it: channels that draw no top k (the
 * usage centroids, `when` vectors) may name others, which hydration then drops.
 */
export interface CandidateSource {
  /** The nearest items of `kind` with a similarity of at least `threshold`, best first. */
  vectorHits(query: Float32Array, kind: MemoryKind, k: number, threshold: number, filter?: MemoryFilter): Promise<VectorHit[]>;
  /** Active items of `kind` without a vector of the active embedder, with the text they are matched by meanwhile. */
  unembedded(kind: MemoryKind): { id: string; text: string }[];
  /** Cosine of the query with these items' vectors (absent for an item without one). */
  vectorSimilarities(query: Float32Array, ids: readonly string[]): Promise<Map<string, number>>;
  /** Whether rewards taught anything yet; until then the usage channels are skipped. */
  readonly usageLearned: boolean;
  usageSimilar(query: Float32Array, kind: MemoryKind, threshold: number, k: number): Map<string, number>;
  usageSimilarities(query: Float32Array, kind: MemoryKind, ids: readonly string[]): Map<string, number>;
  /** Memories of `kind` whose learned phrases, faded to `now`, match the query's terms (phraseMatch > 0), best first, at most `k`. */
  usageMatches(kind: MemoryKind, terms: readonly string[], k: number, now: number, filter?: MemoryFilter): Scored[];
  /** Whether any lesson has a `when`, so the lexical channel may skip its column. */
  readonly anyWhen: boolean;
  whenSimilar(query: Float32Array, k: number, threshold: number): Map<string, number>;
  whenSimilarities(query: Float32Array, ids: readonly string[]): Map<string, number>;
  /** BM25 of active items of `kind` (and, with `when`, of the lessons' `when`) for the query's terms, best first, at most `k` each. */
  bm25(
    kind: MemoryKind,
    terms: readonly string[],
    k: number,
    filter: MemoryFilter | undefined,
    when: boolean,
  ): { text: Scored[]; when: Scored[] };
  hydrate(kind: MemoryKind, ids: readonly string[], filter?: MemoryFilter): ItemFields[];
}

/** Found only through what rewards taught it (usage centroid, learned phrases), not by its own text or vector. */
export const learnedOnly = (i: Pick<Found, "sim" | "lexical" | "when" | "whenLexical" | "usage" | "learned">, threshold: number) =>
  i.lexical === 0 && i.whenLexical === 0 && i.sim < threshold && i.when < threshold && (i.usage > 0 || i.learned > 0);

const byScore = (a: Scored, b: Scored) => b.score - a.score || (a.id < b.id ? -1 : 1);

/**
 * Phase A, hybrid: the vector channel (items at or above the similarity threshold; items without
 * a vector of the active model yet stand in with token-set similarity) and the lexical channel
 * (BM25 over the active items sharing one of the query's discriminative words, see
 * discriminativeTerms) are fused by rank into one relevance. An item either channel finds is a
 * candidate, so a lesson that shares the query's rare words is found even when its cosine falls
 * below the threshold, and a paraphrase without shared words is found by the vector channel alone.
 * A lesson's `when` (its own text about itself) widens both from the start: its vector beside the
 * lesson's own, its BM25 beside the text's.
 *
 * What rewards taught (usage memory) widens them too, within bounds, since a flood of rewards is
 * cheap to send: a memory found only through its usage centroid or learned phrases must still
 * reach LEARNED_FLOOR of the threshold on its own vector or `when`, the centroid lifts its vector
 * score by at most LEARNED_LIFT of the threshold, and a learned phrase at most doubles the BM25
 * its own words earn (or adds one weak match's worth where they earn none). Without rewards there
 * is neither, and retrieval is as it was.
 *
 * A filter narrows every channel that draws a top k (vector, BM25, learned phrases) to the items
 * it matches, and hydration drops the rest: the top k are the best matching items, not the
 * matching share of the best items. Candidates come back ordered by id, whatever order the source
 * answered in, so what is computed from them next sums in one order everywhere.
 */
export async function findCandidates(
  source: CandidateSource,
  query: { text: string; vec: Float32Array },
  kinds: readonly MemoryKind[],
  k1: number,
  threshold: number,
  now: number,
  filter?: MemoryFilter,
): Promise<CandidateInfo[]> {
  const qvec = query.vec;
  type Entry = Omit<Found, "relevance" | "content" | "match" | "channels"> & { stand: boolean; inVector: boolean; simKnown: boolean };
  const entries = new Map<string, Entry>();
  const entry = (id: string, kind: MemoryKind): Entry =>
    entries.get(id) ??
    entries
      .set(id, { kind, sim: 0, lexical: 0, usage: 0, learned: 0, when: 0, whenLexical: 0, stand: false, inVector: false, simKnown: false })
      .get(id)!;
  const queryTokens = tokenize(query.text);
  const terms = ftsTerms(query.text);
  const learnedAny = source.usageLearned;
  const lexicalHits = new Set<string>();
  for (const kind of kinds) {
    for (const hit of await source.vectorHits(qvec, kind, k1, threshold, filter))
      Object.assign(entry(hit.id, kind), { sim: hit.sim, inVector: true, simKnown: true });
    for (const { id, text } of source.unembedded(kind)) {
      const sim = lexicalSimilarity(queryTokens, tokenize(text));
      if (sim >= threshold) Object.assign(entry(id, kind), { sim, stand: true, inVector: true, simKnown: true });
    }
    if (learnedAny)
      for (const [id, sim] of source.usageSimilar(qvec, kind, threshold, k1))
        Object.assign(entry(id, kind), { usage: sim, inVector: true });
    if (kind === "experience")
      for (const [id, sim] of source.whenSimilar(qvec, k1, threshold)) Object.assign(entry(id, kind), { when: sim, inVector: true });
    if (learnedAny) {
      for (const h of source.usageMatches(kind, terms, k1, now, filter)) {
        entry(h.id, kind).learned = h.score;
        lexicalHits.add(h.id);
      }
    }
    const hits = source.bm25(kind, terms, k1, filter, kind === "experience" && source.anyWhen);
    for (const h of hits.text) (entry(h.id, kind).lexical = h.score), lexicalHits.add(h.id);
    for (const h of hits.when) (entry(h.id, kind).whenLexical = h.score), lexicalHits.add(h.id);
  }
  // The vector channel stopped at the threshold; what else was found still reports its cosine,
  // which also decides whether what rewards taught may count for it.
  const unscored = [...entries].filter(([, e]) => !e.simKnown).map(([id]) => id);
  for (const [id, sim] of await source.vectorSimilarities(qvec, unscored)) entries.get(id)!.sim = sim;
  for (const kind of learnedAny ? kinds : []) {
    const ids = [...entries].filter(([, e]) => e.kind === kind).map(([id]) => id);
    for (const [id, sim] of source.usageSimilarities(qvec, kind, ids)) entries.get(id)!.usage = Math.max(0, sim);
  }
  if (kinds.includes("experience")) {
    const ids = [...entries].filter(([, e]) => e.kind === "experience" && e.when === 0).map(([id]) => id);
    for (const [id, sim] of source.whenSimilarities(qvec, ids)) entries.get(id)!.when = Math.max(0, sim);
  }
  for (const [id, e] of entries) if (learnedOnly(e, threshold) && Math.max(e.sim, e.when) < LEARNED_FLOOR * threshold) entries.delete(id);

  const vectorScore = (e: Entry) => {
    const base = Math.max(e.sim, e.when);
    return Math.max(base, Math.min(e.usage, base + LEARNED_LIFT * threshold));
  };
  const lexicalScore = (e: Entry) => {
    const base = e.lexical + WHEN_WEIGHT * e.whenLexical;
    return base + Math.min(LEARNED_PHRASE_WEIGHT * e.learned, Math.max(base, 1));
  };
  const vector = [...entries].filter(([, e]) => e.inVector).map(([id, e]) => ({ id, score: vectorScore(e) }));
  const lexical = [...entries]
    .filter(([id, e]) => lexicalHits.has(id) && lexicalScore(e) > 0)
    .map(([id, e]) => ({ id, score: lexicalScore(e) }));
  vector.sort(byScore);
  lexical.sort(byScore);
  const relevance = fuseRanks([vector.map((v) => v.id), lexical.map((l) => l.id)]);
  const ownVector = [...entries]
    .filter(([, e]) => e.inVector && Math.max(e.sim, e.when) >= threshold)
    .map(([id, e]) => ({ id, score: Math.max(e.sim, e.when) }));
  const ownLexical = [...entries]
    .filter(([id, e]) => lexicalHits.has(id) && e.lexical + WHEN_WEIGHT * e.whenLexical > 0)
    .map(([id, e]) => ({ id, score: e.lexical + WHEN_WEIGHT * e.whenLexical }));
  const content = fuseRanks([ownVector.sort(byScore).map((v) => v.id), ownLexical.sort(byScore).map((l) => l.id)]);
  const found = new Map<string, Found>();
  for (const [id, e] of entries) {
    const r = relevance.get(id);
    if (r === undefined) continue;
    const channels: Channel[] = [];
    if (e.inVector) channels.push(e.stand ? "lexical" : "vector");
    if (lexicalHits.has(id) && !channels.includes("lexical")) channels.push("lexical");
    const { stand: _s, inVector, simKnown: _k, ...f } = e;
    found.set(id, { ...f, match: inVector && !e.stand ? "vector" : "lexical", channels, relevance: r, content: content.get(id) ?? 0 });
  }
  const out: CandidateInfo[] = [];
  for (const kind of ["experience", "case"] as const) {
    const ids = [...found].filter(([, v]) => v.kind === kind).map(([id]) => id);
    if (ids.length) for (const item of source.hydrate(kind, ids, filter)) out.push({ ...item, ...found.get(item.id)! });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
