/**
 * Offline, deterministic text embedding by signed feature hashing.
 *
 * It needs no model and no network, so it is the default embedder in development and tests and
 * the fallback when no embedding endpoint is configured. It captures lexical overlap, not meaning:
 * paraphrases that share words or word stems score high, synonyms with no shared stem do not.
 * Changing any constant or feature here changes every vector, so bump HASH_EMBEDDER_MODEL with it;
 * stored vectors are tagged with the model name and must be re-embedded when it changes.
 */
import { l2normalize } from "./vector-math";

export const HASH_EMBEDDER_MODEL = "praxis-hash-v1";
export const HASH_DIMS = 384;

const UNIGRAM_WEIGHT = 1.0;
const BIGRAM_WEIGHT = 0.7;
const TRIGRAM_WEIGHT = 0.4;
/**
 * Multiplier for function words. Without it, two unrelated sentences that both say "the ... is
 * on the ..." score around 0.45; with it, around 0.1, while paraphrases lose almost nothing.
 * The list is English-only and short on purpose: a missing entry costs a little precision, a wrong
 * entry would hide content. Negations ("not", "no", "never") stay at full weight because lessons
 * like "do not retry" must not look like "retry".
 */
const STOPWORD_WEIGHT = 0.3;
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but if then so of to in on at by for with from as into onto about " +
    "is are was were be been being am do does did has have had it its this that these those " +
    "there their they them he she we you i me my our your his her can will would should " +
    "could may might must shall when while which who whom what where how than too very just also"
  ).split(" "),
);

const TOKEN_RE = /[\p{L}\p{N}]+/gu;

/**
 * FNV-1a over UTF-16 code units followed by the murmur3 finaliser. FNV alone mixes its low bits
 * poorly, and both the bucket (modulo) and the sign come from the hash, so they need the avalanche.
 * Code units rather than UTF-8 bytes: cheaper, and a feature hash only has to agree with itself.
 */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Lowercased Unicode letter/digit runs; NFKC first so full-width and composed forms tokenise alike. */
export function tokenize(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(TOKEN_RE) ?? [];
}

/**
 * Features, each namespaced by a prefix so that the word "the" and the trigram "the" differ:
 * - word unigrams: the main lexical signal;
 * - word bigrams: shared phrasing and word order; a bigram of two function words ("of the")
 *   carries no topic, so it gets the stopword weight, while "the cache" keeps full weight;
 * - character trigrams of each word padded with "^" and "$" (over code points): they let
 *   inflections and derivations ("deploy", "deployed", "deployment") overlap. Taken per word
 *   rather than over the whole text so that no trigram spans a word boundary (those would only
 *   repeat the bigram signal), and the padding keeps word starts and ends apart from word middles.
 * Repeated features are dampened (w > 1 becomes 1 + ln w) so one word said five times does not
 * outvote the rest of the text. Each feature then goes to bucket hash mod dims with a sign from
 * the hash's top bit: signed hashing makes collisions cancel in expectation instead of always
 * inflating similarity.
 */
export function hashEmbed(text: string, dims: number = HASH_DIMS): Float32Array {
  if (!Number.isInteger(dims) || dims <= 0) throw new RangeError(`dims must be a positive integer, got ${dims}`);
  const features = new Map<string, number>();
  const add = (feature: string, weight: number): void => {
    features.set(feature, (features.get(feature) ?? 0) + weight);
  };

  const words = tokenize(text);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const stop = STOPWORDS.has(w);
    const ww = stop ? STOPWORD_WEIGHT : 1;
    add("w:" + w, UNIGRAM_WEIGHT * ww);
    if (i > 0) {
      const prev = words[i - 1]!;
      add("b:" + prev + " " + w, BIGRAM_WEIGHT * (stop && STOPWORDS.has(prev) ? STOPWORD_WEIGHT : 1));
    }
    const chars = Array.from("^" + w + "$");
    for (let j = 0; j + 3 <= chars.length; j++) add("c:" + chars[j]! + chars[j + 1]! + chars[j + 2]!, TRIGRAM_WEIGHT * ww);
  }

  const out = new Float32Array(dims);
  for (const [feature, raw] of features) {
    const weight = raw > 1 ? 1 + Math.log(raw) : raw;
    const h = hash32(feature);
    const bucket = (h & 0x7fffffff) % dims;
    out[bucket] = out[bucket]! + (h & 0x80000000 ? -weight : weight);
  }
  return l2normalize(out);
}
