/**
 * Usage memory: what a memory was *used for*. A rewarded retrieval leaves its query on the memories
 * that served it, as words (learned phrases, searched by the lexical channel) and as an embedding
 * (a usage centroid, scored by the vector channel beside the memory's own vector). Pure logic; the
 * Durable Object stores the results.
 */
import { encodeCode } from "./int8-matrix";
import { ftsTerms, lexicalSimilarity } from "./lexical";
import { retention, type DecayParams } from "./decay";
import { assessInsight } from "./poison";

/** Phrases kept per memory: the most rewarded (then most recent) win, so a flood of distinct queries cannot widen a memory without bound. */
export const MAX_PHRASES = 8;
/** Content words kept from one query. */
export const MAX_PHRASE_WORDS = 16;
/** The weight one phrase can reach: repeating the same reward adds nothing past it. */
export const MAX_PHRASE_WEIGHT = 3;
/** Queries the centroid averages exactly; past this it becomes a moving average, so it keeps adapting. */
export const MAX_CENTROID_COUNT = 20;
/**
 * Positive lessons one key may give one memory per hour. Enough for an agent that keeps using a
 * memory (a phrase reaches MAX_PHRASE_WEIGHT in three), too few for one key to flood it.
 */
export const MAX_TEACH_PER_HOUR = 5;

export interface LearnedPhrase {
  text: string;
  /** The weight when last reinforced or weakened, at `at`; it fades from there (see Fade). */
  weight: number;
  at: number;
  /** Waiting for the LLM safety review (an LLM is configured): kept, but matched by nothing until it passes. */
  pending?: boolean;
}

/**
 * How much of a phrase's weight is left, given when it was last reinforced: its memory's own
 * retention curve (src/core/decay.ts), so a phrase fades as fast as the memory it points to would.
 */
export type Fade = (at: number) => number;
export const NO_FADE: Fade = () => 1;

/**
 * A memory's phrases fade on the memory's own retention curve (its Q and uses set the rate, as
 * the decay sweep's do), counted from each phrase's last reward: what a memory was used for is
 * forgotten no slower than the memory itself. Nothing fades while the agent's decay is off.
 */
export function phraseFade(decay: DecayParams & { enabled: boolean }, now: number, q: number, uses: number): Fade {
  return decay.enabled ? (at) => retention({ lastUsedAt: at, createdAt: at, q, uses }, now, decay) : NO_FADE;
}
/** A phrase faded below this weight is forgotten at the next write of its memory. */
const FORGOTTEN = 0.05;

/** The weight a phrase has now. */
export const weightOf = (p: LearnedPhrase, fade: Fade) => p.weight * fade(p.at);

/** The words a query leaves on a memory: its content words, each once, in order (null when it has none). */
export function phraseOf(query: string): string | null {
  const words = ftsTerms(query).slice(0, MAX_PHRASE_WORDS);
  return words.length ? words.join(" ") : null;
}

/**
 * The phrase a rewarded query may teach. Learned phrases never reach a prompt, but they are text a
 * client wrote that then steers what is retrieved: a query the poison filter flags teaches no words.
 */
export const learnablePhrase = (query: string): string | null => (assessInsight(query).quarantined ? null : phraseOf(query));

/**
 * Adds `credit` (positive teaches, negative weakens) to the phrase, then keeps the strongest
 * MAX_PHRASES. A phrase whose weight reaches zero is forgotten.
 */
export function applyPhrase(
  phrases: readonly LearnedPhrase[],
  text: string,
  credit: number,
  at: number,
  fade: Fade = NO_FADE,
  pending = false,
): LearnedPhrase[] {
  const out = phrases.map((p) => ({ ...p }));
  const found = out.find((p) => p.text === text);
  if (found) {
    found.weight = Math.min(MAX_PHRASE_WEIGHT, weightOf(found, fade) + credit);
    found.at = at;
  } else if (credit > 0) {
    out.push({ text, weight: Math.min(MAX_PHRASE_WEIGHT, credit), at, ...(pending ? { pending: true } : {}) });
  }
  return out
    .map((p) => ({ p, now: weightOf(p, p === found ? NO_FADE : fade) }))
    .filter((x) => x.now > FORGOTTEN)
    .sort((a, b) => b.now - a.now || b.p.at - a.p.at || (a.p.text < b.p.text ? -1 : 1))
    .map((x) => x.p)
    .slice(0, MAX_PHRASES);
}

/**
 * How much of one learned phrase a query must share (cosine over their word sets) for the phrase
 * to count: one shared word of a long phrase is not the same situation, and a memory rewarded
 * for many topics must not match every query that touches one of them.
 */
export const MIN_PHRASE_MATCH = 0.4;

/**
 * Rewarded uses an association needs before it moves a ranking: one retrieval is one outcome,
 * which may be luck or a lie, so a phrase or centroid counts from nothing at one credit to fully
 * at USAGE_EVIDENCE. A reward teaches each memory at most one credit (reward-learning.ts), so
 * this takes rewards of at least two retrievals or episodes.
 */
export const USAGE_EVIDENCE = 2;
/** How much of an association with this much credit behind it counts, in [0, 1]. */
export const evidenceOf = (credit: number) => Math.min(1, Math.max(0, (credit - 1) / (USAGE_EVIDENCE - 1)));

/** The best word-set cosine of the query's content words with one of the phrases (0 below MIN_PHRASE_MATCH), times how much that phrase's evidence counts. */
export function phraseMatch(terms: readonly string[], phrases: readonly LearnedPhrase[], fade: Fade = NO_FADE): number {
  let best = 0;
  for (const p of phrases) {
    if (p.pending) continue;
    const sim = lexicalSimilarity(terms, p.text.split(" "));
    if (sim >= MIN_PHRASE_MATCH) best = Math.max(best, sim * evidenceOf(weightOf(p, fade)));
  }
  return best;
}

/** The text the lexical channel indexes for a memory's learned phrases. */
export const learnedText = (phrases: readonly LearnedPhrase[]) =>
  phrases
    .filter((p) => !p.pending)
    .map((p) => p.text)
    .join("\n");

/** Applies the safety review's verdicts on pending phrases: a safe one is admitted, an unsafe one forgotten. */
export function reviewPhrases(phrases: readonly LearnedPhrase[], verdicts: ReadonlyMap<string, boolean>): LearnedPhrase[] {
  return phrases.flatMap((p) => {
    if (!p.pending || !verdicts.has(p.text)) return [p];
    if (!verdicts.get(p.text)) return [];
    const { pending: _, ...admitted } = p;
    return [admitted];
  });
}

export interface Centroid {
  /** The mean of the (unit) query embeddings; its length shrinks as the queries spread out. */
  vec: Float32Array;
  /** Queries averaged, at most MAX_CENTROID_COUNT. */
  n: number;
}

function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const out = new Float32Array(v.length);
  if (!(s > 0)) return out;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/**
 * Moves the centroid toward a query embedding that a memory served (`weight` > 0, a running mean
 * over at most MAX_CENTROID_COUNT queries), or weakens it (`weight` < 0: one fewer query counts,
 * and the centroid is gone at zero). A centroid of another size (the embedder changed) restarts.
 */
export function updateCentroid(c: Centroid | null, query: Float32Array, weight: number): Centroid | null {
  const q = unit(query);
  if (weight < 0) {
    if (!c || c.vec.length !== q.length) return c;
    const n = c.n + weight;
    return n > 1e-9 ? { vec: c.vec, n } : null;
  }
  if (!c || c.vec.length !== q.length) return { vec: q.map((x) => x * Math.min(1, weight)), n: weight };
  const n = Math.min(MAX_CENTROID_COUNT, c.n + weight);
  const step = weight / n;
  const vec = new Float32Array(q.length);
  for (let i = 0; i < q.length; i++) vec[i] = c.vec[i]! + (q[i]! - c.vec[i]!) * step;
  return { vec, n };
}

/**
 * The usage channel's similarity: the dot product of the query with the centroid, i.e. the mean
 * cosine of the query with the queries the memory served. A memory rewarded for many unrelated
 * queries has a short centroid and so a low score for any one of them: that is the cap on how far
 * a flood of rewards can carry one memory. It counts only as far as its evidence (evidenceOf).
 */
export function usageSimilarity(c: Centroid, query: Float32Array): number {
  if (c.vec.length !== query.length) return 0;
  const q = unit(query);
  let dot = 0;
  for (let i = 0; i < q.length; i++) dot += c.vec[i]! * q[i]!;
  return dot * evidenceOf(c.n);
}

/** What the cosine with a stored centroid's direction is multiplied by to give usageSimilarity: its length times its evidence. */
export const centroidFactor = (norm: number, n: number) => norm * evidenceOf(n);

/** Centroids the scan keeps per query before their factor is applied: a short centroid can fall out of the top k1. */
export const USAGE_SCAN_WIDTH = 4;

/** Stored form: the int8 code of the centroid's direction (see encodeCode) plus its length and count, kept beside it. */
export function encodeCentroid(c: Centroid): { code: Uint8Array; norm: number; n: number } {
  let s = 0;
  for (let i = 0; i < c.vec.length; i++) s += c.vec[i]! * c.vec[i]!;
  return { code: encodeCode(c.vec), norm: Math.sqrt(s), n: c.n };
}

export function decodeCentroid(code: Uint8Array, norm: number, n: number): Centroid {
  const dims = code.length - 4;
  const scale = new DataView(code.buffer, code.byteOffset, code.byteLength).getFloat32(dims, true);
  const codes = new Int8Array(code.buffer, code.byteOffset, dims);
  const dir = new Float32Array(dims);
  for (let i = 0; i < dims; i++) dir[i] = codes[i]! * scale;
  const u = unit(dir);
  for (let i = 0; i < dims; i++) u[i] = u[i]! * norm;
  return { vec: u, n };
}

/** A unit query embedding from its stored int8 code (retrievals keep the code of their query). */
export function decodeQuery(code: Uint8Array): Float32Array {
  return decodeCentroid(code, 1, 1).vec;
}
