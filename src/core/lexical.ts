import { STOPWORDS, tokenize } from "./hash-embedder";

/**
 * Cosine over token sets: the fallback similarity for items that have no vector of the active
 * embedder yet. It is bounded in [0, 1] like vector cosine for normalised text embeddings, so
 * both kinds of candidate can share the similarity threshold and the z-scoring.
 */
export function lexicalSimilarity(a: string | readonly string[], b: string | readonly string[]): number {
  const ta = new Set(typeof a === "string" ? tokenize(a) : a);
  const tb = new Set(typeof b === "string" ? tokenize(b) : b);
  if (!ta.size || !tb.size) return 0;
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  return shared / Math.sqrt(ta.size * tb.size);
}

/** More terms only add rows to score: a query is a sentence or two, and BM25's IDF ranks the rest. */
const MAX_MATCH_TERMS = 32;

/**
 * The lexical channel is there for the words that single out a few memories (a status code, an
 * error name, a product): a word found in more memories than this tells them apart too weakly to
 * be worth scoring every one of them, and is left to the vector channel.
 */
export const LEXICAL_MAX_TERM_DOCS = 250;
/**
 * Rows BM25 scores per query and kind, at most. FTS5 scores every row that matches before it can
 * sort, so this, not the library's size, bounds the channel's cost; the rarest words go first.
 */
export const LEXICAL_MAX_SCORED_ROWS = 500;

/**
 * A query's content words, each once, in order. Function words are left out because nearly every
 * lesson contains them, which would make every lesson a lexical candidate.
 */
export function ftsTerms(text: string): string[] {
  return [...new Set(tokenize(text).filter((t) => !STOPWORDS.has(t)))].slice(0, MAX_MATCH_TERMS);
}

/**
 * The FTS5 MATCH expression for any of `terms`, each quoted so that no word is read as FTS5 syntax
 * (AND, NEAR, column filters); null when there is nothing to match.
 */
export function ftsMatchOf(terms: readonly string[]): string | null {
  return terms.length ? terms.map((t) => `"${t}"`).join(" OR ") : null;
}

/**
 * The terms worth a BM25 pass, given how many memories each matches (counted up to a little past
 * `maxTermDocs`): none that match nothing or more than `maxTermDocs`, then the rarest first while
 * the rows to score stay within `maxScoredRows`. Kept in the query's order.
 */
export function discriminativeTerms(
  counts: readonly { term: string; docs: number }[],
  limits: { maxTermDocs: number; maxScoredRows: number } = { maxTermDocs: LEXICAL_MAX_TERM_DOCS, maxScoredRows: LEXICAL_MAX_SCORED_ROWS },
): string[] {
  const usable = counts.filter((c) => c.docs > 0 && c.docs <= limits.maxTermDocs);
  const kept = new Set<string>();
  let rows = 0;
  for (const c of [...usable].sort((a, b) => a.docs - b.docs)) {
    if (rows + c.docs > limits.maxScoredRows) break;
    rows += c.docs;
    kept.add(c.term);
  }
  return usable.filter((c) => kept.has(c.term)).map((c) => c.term);
}

/** Rough token count (≈ 4 characters per token for English), for prompt budgets and usage without a provider count. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);
