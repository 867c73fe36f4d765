/**
 * What changed in an agent's read model as content between two versions (ContentDelta): the items
 * changed since, as they are now, and what moved in the lexical statistics because of them. The
 * object computes it from its change log (durable-objects/agent-memory/retrieval/content-delta.ts)
 * in work proportional to the change; a Worker applies it to the snapshot it holds
 * (SnapshotReader.applyContent) and then ranks exactly as from a snapshot built at the new version.
 */
import { type Bm25Table, PostingArray } from "./bm25";
import type { MemoryKind } from "../memory-types";
import type { Subscription } from "../shared-lessons";
import type { CodeEntry, CodeRows, LexicalTable, RetrievalConfig, SigningSecret, SnapshotCase, SnapshotLesson } from "./snapshot";

/** One FTS table's statistics after the change, for the terms the change touched. */
export interface LexicalDelta {
  rows: number;
  tokens: number;
  /** The content table's rows, every status (null for the `when` column, which has none of its own). */
  contentRows: number | null;
  /**
   * How far each term's row count moved since the Worker's version, for every term a changed item
   * holds now or held then (0 for most). A changed row's postings are only ever under these terms,
   * so dropping it looks at no other.
   */
  moved: [term: string, by: number][];
  /** The changed rows that are searchable now: their length and term frequencies. */
  add: [row: number, length: number, terms: [term: string, tf: number][]][];
}

export interface ContentDelta {
  contentVersion: number;
  libraryVersion: number;
  /** A Worker holding vectors of another embedder cannot apply this: it takes a snapshot instead. */
  model: string;
  dims: number;
  config: RetrievalConfig;
  signing: SigningSecret;
  subscriptions: Subscription[];
  anyWhen: boolean;
  /** Items changed since that are not active now (deleted, archived, quarantined, held). */
  removed: string[];
  /** Changed lessons and cases that are active now, as a snapshot holds them (labels are the Worker's to give). */
  lessons: Omit<SnapshotLesson, "label">[];
  cases: SnapshotCase[];
  /** The codes of the changed items the object's index holds; a changed item without one leaves the scan. */
  vectors: Record<MemoryKind, CodeRows>;
  whens: CodeEntry[];
  unembedded: Record<MemoryKind, { id: string; text: string }[]>;
  lexical: { experience: LexicalDelta; case: LexicalDelta; when: LexicalDelta };
}

/**
 * Applies one table's delta: `dropped` are the rowids the changed items had in the Worker's
 * version. Each touched term's posting list is built again once, whatever the number of rows.
 */
export function applyLexical(table: Bm25Table | LexicalTable, delta: LexicalDelta, dropped: readonly number[]): void {
  table.rows = delta.rows;
  table.tokens = delta.tokens;
  if (delta.contentRows !== null && "contentRows" in table) table.contentRows = delta.contentRows;
  for (const row of dropped) table.lengths.delete(row);
  const added = new Map<string, [number, number][]>();
  for (const [row, length, terms] of delta.add) {
    table.lengths.set(row, length);
    for (const [term, tf] of terms) {
      let rows = added.get(term);
      if (!rows) added.set(term, (rows = []));
      rows.push([row, tf]);
    }
  }
  const drop = new Set([...dropped, ...delta.add.map(([row]) => row)]);
  for (const [term, by] of delta.moved) {
    const n = (table.docs.get(term) ?? 0) + by;
    if (n > 0) table.docs.set(term, n);
    else table.docs.delete(term);
    const before = table.postings.get(term);
    const add = (added.get(term) ?? []).sort((a, b) => a[0] - b[0]);
    const after =
      before instanceof PostingArray
        ? before.without(drop, add)
        : PostingArray.of(
            [...(before ?? [])]
              .filter(([row]) => !drop.has(row))
              .concat(add)
              .sort((a, b) => a[0] - b[0]),
          );
    if (after.size) table.postings.set(term, after);
    else table.postings.delete(term);
  }
}

/** Bytes a delta takes, about (a character a byte): what a Worker's cache adds to the entry's weight. */
export function deltaBytes(d: ContentDelta): number {
  let n = d.vectors.experience.codes.length + d.vectors.case.codes.length;
  for (const w of d.whens) n += w.code.length;
  for (const i of [...d.lessons, ...d.cases]) n += i.text.length + 64;
  for (const t of [d.lexical.experience, d.lexical.case, d.lexical.when]) for (const [, , terms] of t.add) n += 12 * terms.length;
  return n;
}
