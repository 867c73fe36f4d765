/**
 * SQLite FTS5's bm25() over a snapshot of one FTS5 table's statistics, as the agent's object
 * reads them from FTS5 itself (its row count and token total, each term's document count, each
 * row's length and term frequencies): the same IDF (floored at 1e-6), k1 = 1.2, b = 0.75 and the
 * same order of operations, so a Worker scores a query's rows as the object's MATCH does.
 */
import { discriminativeTerms, LEXICAL_MAX_TERM_DOCS } from "../lexical";

const K1 = 1.2;
const B = 0.75;

/** One term's searchable rows and how often each holds it: a Map as the object reads FTS5, a PostingArray in a Worker. */
export interface PostingList {
  readonly size: number;
  keys(): Iterable<number>;
  get(row: number): number | undefined;
  [Symbol.iterator](): Iterator<[row: number, tf: number]>;
}

/**
 * A posting list in one typed array, row and frequency interleaved, rows ascending: 8 bytes a
 * posting where a Map takes about fifty, which is what lets a Worker hold the lexical statistics of
 * a 100,000-memory library. Immutable: a delta builds the term's list again (`without`), in one
 * pass over it.
 */
export class PostingArray implements PostingList {
  private constructor(private readonly pairs: Int32Array) {}

  /** From entries with rows ascending and distinct. */
  static of(entries: readonly (readonly [number, number])[]): PostingArray {
    const pairs = new Int32Array(2 * entries.length);
    entries.forEach(([row, tf], i) => {
      pairs[2 * i] = row;
      pairs[2 * i + 1] = tf;
    });
    return new PostingArray(pairs);
  }

  get size(): number {
    return this.pairs.length / 2;
  }

  *keys(): Iterable<number> {
    for (let i = 0; i < this.pairs.length; i += 2) yield this.pairs[i]!;
  }

  get(row: number): number | undefined {
    let lo = 0;
    let hi = this.pairs.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.pairs[2 * mid]!;
      if (r === row) return this.pairs[2 * mid + 1];
      if (r < row) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  *[Symbol.iterator](): Iterator<[number, number]> {
    for (let i = 0; i < this.pairs.length; i += 2) yield [this.pairs[i]!, this.pairs[i + 1]!];
  }

  /** This list less the rows in `drop`, with `add` (rows not in it after the drop) merged in. */
  without(drop: ReadonlySet<number>, add: readonly (readonly [number, number])[]): PostingArray {
    const kept = [...this].filter(([row]) => !drop.has(row));
    return PostingArray.of(add.length ? [...kept, ...add].sort((a, b) => a[0] - b[0]) : kept);
  }
}

export interface Bm25Table {
  /** Rows FTS5 counts (every status: an external-content index holds archived rows too). */
  rows: number;
  /** Tokens in all of them, over every column. */
  tokens: number;
  /** Rows holding each term. */
  docs: Map<string, number>;
  /** Per term, the searchable rows holding it (by rowid) and how often. */
  postings: Map<string, PostingList>;
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
