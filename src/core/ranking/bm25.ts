/**
 * SQLite FTS5's bm25() over a snapshot of one FTS5 table's statistics, as the agent's object
 * reads them from FTS5 itself (its row count and token total, each term's document count, each
 * row's length and term frequencies): the same IDF (floored at 1e-6), k1 = 1.2, b = 0.75 and the
 * same order of operations, so a Worker scores a query's rows as the object's MATCH does.
 */
import { discriminativeTerms, LEXICAL_MAX_TERM_DOCS } from "../lexical";
import { VarintReader, VarintWriter } from "../varint";

const K1 = 1.2;
const B = 0.75;

/** One term's searchable rows and how often each holds it, rows ascending: a Map as the object reads FTS5, a PostingArray in a Worker. */
export interface PostingList {
  readonly size: number;
  [Symbol.iterator](): Iterator<[row: number, tf: number]>;
}

/**
 * A posting list as varints in one byte array, each row as its distance from the one before and
 * then its frequency: two or three bytes a posting where a Map takes about fifty (and a pair of
 * int32s eight), which is what lets a Worker hold the lexical statistics of a 100,000-memory
 * library. Read front to back only, as bm25Rows does. Immutable: a delta builds the term's list
 * again (`without`).
 */
export class PostingArray implements PostingList {
  private constructor(
    private readonly packed: Uint8Array,
    readonly size: number,
    /** The last row (0 when empty): a delta whose rows all come after it only appends. */
    private readonly last: number,
  ) {}

  /**
   * The `size` postings encoded from `reader`'s position on (as `of` encodes them), taken as they
   * stand: the bytes are a view of the reader's buffer, not a copy, and no pair is made. The
   * reader is left after them.
   */
  static read(reader: VarintReader, size: number): PostingArray {
    const start = reader.at;
    let row = 0;
    for (let i = 0; i < size; i++) {
      row += reader.varint();
      reader.varint();
    }
    return new PostingArray(reader.bytes(start, reader.at), size, row);
  }

  /** From entries with rows ascending and distinct. */
  static of(entries: readonly (readonly [number, number])[]): PostingArray {
    const w = new VarintWriter(4 * entries.length);
    let last = 0;
    for (const [row, tf] of entries) {
      w.varint(row - last);
      w.varint(tf);
      last = row;
    }
    return new PostingArray(w.done(), entries.length, last);
  }

  *[Symbol.iterator](): Iterator<[number, number]> {
    const r = new VarintReader(this.packed);
    let row = 0;
    while (r.more) {
      row += r.varint();
      yield [row, r.varint()];
    }
  }

  /**
   * This list less the rows in `drop`, with `add` (rows ascending, none in it after the drop)
   * merged in. One pass over the bytes without an object per posting; a change that only adds
   * rows past the last (a new item: seqs only grow) copies the bytes and writes the new ones.
   */
  without(drop: ReadonlySet<number>, add: readonly (readonly [number, number])[]): PostingArray {
    const w = new VarintWriter(this.packed.length + 8 * add.length + 16);
    let size = 0;
    let prev = 0;
    let next = 0;
    const put = (row: number, tf: number) => {
      w.varint(row - prev);
      w.varint(tf);
      prev = row;
      size++;
    };
    const untouched = add.length > 0 && add[0]![0] > this.last && ![...drop].some((row) => row <= this.last);
    if (untouched || (drop.size === 0 && add.length === 0)) {
      w.bytes(this.packed);
      prev = this.last;
      size = this.size;
    } else {
      const r = new VarintReader(this.packed);
      let row = 0;
      while (r.more) {
        row += r.varint();
        const tf = r.varint();
        while (next < add.length && add[next]![0] < row) put(add[next]![0], add[next++]![1]);
        if (!drop.has(row)) put(row, tf);
      }
    }
    while (next < add.length) put(add[next]![0], add[next++]![1]);
    return new PostingArray(w.done(), size, prev);
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
  // Each term's list read once, in the query's term order: a row's score sums the same terms in
  // the same order as a row-by-row pass would (an absent term adds exactly 0).
  const scores = new Map<number, number>();
  const refused = new Set<number>();
  terms.forEach((t, i) => {
    for (const [row, f] of table.postings.get(t) ?? []) {
      let score = scores.get(row);
      if (score === undefined) {
        if (refused.has(row)) continue;
        if (!accept(row)) {
          refused.add(row);
          continue;
        }
        score = 0;
      }
      const d = table.lengths.get(row) ?? 0;
      scores.set(row, score + idf[i]! * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * d) / avgdl))));
    }
  });
  const out: RowScore[] = [...scores].map(([row, score]) => ({ row, score }));
  out.sort((a, b) => b.score - a.score || a.row - b.row);
  return out.slice(0, Math.max(0, limit));
}
