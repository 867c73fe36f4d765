import type { Bm25Table } from "../../../src/core/ranking/bm25";

/** An FTS5 varint (SQLite's): big-endian 7-bit groups, the ninth byte whole. */
function varints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let v = 0;
    for (let n = 0; ; n++) {
      const b = bytes[i++]!;
      if (n === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if (b < 0x80) break;
    }
    out.push(v);
  }
  return out;
}

/**
 * FTS5's statistics of one table as bm25() reads them: the row count and token total from its
 * averages record, each term's row count, and for the searchable rows (`searchable`, a SELECT of
 * rowids) their lengths (docsize) and term frequencies.
 */
export function ftsStatistics(sql: SqlStorage, fts: string, searchable: string): Bm25Table {
  const docs = new Map<string, number>();
  for (const r of sql.exec<{ term: string; doc: number }>(`SELECT term, doc FROM ${fts}_terms`)) docs.set(r.term, r.doc);
  const postings = new Map<string, Map<number, number>>();
  for (const r of sql.exec<{ term: string; doc: number; tf: number }>(
    `SELECT term, doc, count(*) AS tf FROM ${fts}_instances WHERE doc IN (${searchable}) GROUP BY term, doc`,
  )) {
    let p = postings.get(r.term);
    if (!p) postings.set(r.term, (p = new Map()));
    p.set(r.doc, r.tf);
  }
  const lengths = new Map<number, number>();
  for (const r of sql.exec<{ id: number; sz: ArrayBuffer }>(`SELECT id, sz FROM ${fts}_docsize WHERE id IN (${searchable})`)) {
    lengths.set(
      r.id,
      varints(new Uint8Array(r.sz)).reduce((a, n) => a + n, 0),
    );
  }
  return { ...ftsAverages(sql, fts), docs, postings, lengths };
}

/** FTS5's row count and token total of one table, from its averages record. */
export function ftsAverages(sql: SqlStorage, fts: string): { rows: number; tokens: number } {
  const block = sql.exec<{ block: ArrayBuffer }>(`SELECT block FROM ${fts}_data WHERE id = 1`).toArray()[0];
  const averages = block ? varints(new Uint8Array(block.block)) : [];
  return { rows: averages[0] ?? 0, tokens: averages.slice(1).reduce((a, n) => a + n, 0) };
}
