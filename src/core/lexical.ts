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
 * The FTS5 MATCH expression for a query: any of its content words, each quoted so that no word is
 * read as FTS5 syntax (AND, NEAR, column filters). Function words are left out because nearly
 * every lesson contains them, which would make every lesson a lexical candidate; null when nothing
 * is left to match.
 */
export function ftsMatch(text: string): string | null {
  const terms = [...new Set(tokenize(text).filter((t) => !STOPWORDS.has(t)))].slice(0, MAX_MATCH_TERMS);
  return terms.length ? terms.map((t) => `"${t}"`).join(" OR ") : null;
}

/** Rough token count (≈ 4 characters per token for English), for prompt budgets and usage without a provider count. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);
