/**
 * SQLite FTS5's bm25() over a snapshot of one FTS5 table's statistics, as the agent's object
 * reads them from FTS5 itself (its row count and token total, each term's document count, each
 * row's length and term frequencies): the same IDF (floored at 1e-6), k1 = 1.2, b = 0.75 and the
 * same order of operations, so a Worker scores a query's rows as the object's MATCH does.
 */
import { discriminativeTerms, LEXICAL_MAX_TERM_DOCS } from "../lexical";

const K1 = 1.2;
const B = 0.75;

export interface Bm25Table {
  /** Rows FTS5 counts (every status: an external-content index holds archived rows too). */
  rows: number;
  /** Tokens in all of them, over every column. */
  tokens: number;
  /** Rows holding each term. */
  docs: Map<string, number>;
  /** Per term, the searchable rows holding it (by rowid) and how often. */
  postings: Map<string, Map<number, number>>;
  /** Tokens of each searchable row, over every column. */
  lengths: Map<number, number>;
}

/** A row's score, by rowid. */
export interface RowScore {
  row: number;
  score: number;
}

/**
 * The FTS5 terms of the query words the lexical channel matches (see discriminativeTerms): in a
 * table of at most LEXICAL_MAX_TERM_DOCS rows every word, else the rare ones, counted as the
 * object counts them (each word's rows, capped just past the limit). Words, not terms, are chosen,
 * as the object chooses them: two words of one stem are two phrases.
 */
export function chosenTerms(table: Bm25Table, contentRows: number, words: readonly { word: string; term: string }[]): string[] {
  const termOf = new Map(words.map((w) => [w.word, w.term]));
  const chosen =
    contentRows <= LEXICAL_MAX_TERM_DOCS
      ? words.map((w) => w.word)
      : discriminativeTerms(words.map((w) => ({ term: w.word, docs: Math.min(table.docs.get(w.term) ?? 0, LEXICAL_MAX_TERM_DOCS + 1) })));
  return chosen.map((w) => termOf.get(w)!);
}

/**
 * The `limit` best searchable rows holding any of `terms` (each a phrase of one term, as
 * `"a" OR "b"`) that `accept` keeps, best first; ties by rowid, the order FTS5 visits rows in.
 */
export function bm25Rows(table: Bm25Table, terms: readonly string[], limit: number, accept: (row: number) => boolean): RowScore[] {
  if (!terms.length || table.rows <= 0) return [];
  const avgdl = table.tokens / table.rows;
  const idf = terms.map((t) => {
    const hits = table.docs.get(t) ?? 0;
    const v = Math.log((table.rows - hits + 0.5) / (hits + 0.5));
    return v <= 0 ? 1e-6 : v;
  });
  const postings = terms.map((t) => table.postings.get(t));
  const rows = new Set<number>();
  for (const p of postings) if (p) for (const row of p.keys()) rows.add(row);
  const out: RowScore[] = [];
  for (const row of rows) {
    if (!accept(row)) continue;
    const d = table.lengths.get(row) ?? 0;
    let score = 0;
    for (let i = 0; i < terms.length; i++) {
      const f = postings[i]?.get(row) ?? 0;
      score += idf[i]! * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * d) / avgdl)));
    }
    out.push({ row, score });
  }
  out.sort((a, b) => b.score - a.score || a.row - b.row);
  return out.slice(0, Math.max(0, limit));
}
