import { tokenize } from "./hash-embedder";

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

/** Rough token count (≈ 4 characters per token for English), for prompt budgets and usage without a provider count. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);
