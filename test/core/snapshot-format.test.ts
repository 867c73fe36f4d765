import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bm25Rows, type Bm25Table, PostingArray } from "../../src/core/ranking/bm25";
import { decodeSnapshot, encodeSnapshot } from "../../src/core/ranking/snapshot";
import { SnapshotReader } from "../../src/core/ranking/snapshot-source";
import { decodedBytes } from "../../src/core/ranking/snapshot-footprint";
import { int8ScanWasm } from "../../src/core/int8-scan-wasm";
import { generatedSnapshot } from "../../bench/lib/generated-snapshot";

const kernel = new (WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module)(int8ScanWasm());

const postings = fc
  .uniqueArray(fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 2 ** 40 })), { maxLength: 60 })
  .chain((rows) =>
    fc.tuple(
      fc.constant([...rows].sort((a, b) => a - b)),
      fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: rows.length, maxLength: rows.length }),
    ),
  )
  .map(([rows, tfs]) => rows.map((row, i): [number, number] => [row, tfs[i]!]));

/** FTS5's bm25 as the object's statistics give it, row by row: what the Worker's term-by-term pass must equal exactly. */
function rowByRow(table: Bm25Table, terms: readonly string[], accept: (row: number) => boolean) {
  const avgdl = table.tokens / table.rows;
  const idf = terms.map((t) => {
    const hits = table.docs.get(t) ?? 0;
    const v = Math.log((table.rows - hits + 0.5) / (hits + 0.5));
    return v <= 0 ? 1e-6 : v;
  });
  const lists = terms.map((t) => new Map(table.postings.get(t) ?? []));
  const rows = new Set(lists.flatMap((l) => [...l.keys()]));
  const out = [];
  for (const row of rows) {
    if (!accept(row)) continue;
    const d = table.lengths.get(row) ?? 0;
    let score = 0;
    lists.forEach((l, i) => {
      const f = l.get(row) ?? 0;
      score += idf[i]! * ((f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * d) / avgdl)));
    });
    out.push({ row, score });
  }
  return out.sort((a, b) => b.score - a.score || a.row - b.row);
}

describe("snapshot format", () => {
  it("a posting list gives back its postings, and without() drops and merges as a rebuilt list", () => {
    fc.assert(
      fc.property(postings, fc.array(fc.boolean(), { maxLength: 60 }), (entries, dropMask) => {
        const list = PostingArray.of(entries);
        expect([...list]).toEqual(entries);
        expect(list.size).toBe(entries.length);
        const drop = new Set(entries.filter((_, i) => dropMask[i]).map(([row]) => row));
        const add: [number, number][] = [...drop].slice(0, 3).map((row) => [row, 7]);
        const expected = entries
          .filter(([row]) => !drop.has(row))
          .concat(add)
          .sort((a, b) => a[0] - b[0]);
        expect([...list.without(drop, add)]).toEqual(expected);
      }),
    );
  });

  it("bm25Rows scores every row exactly as a row-by-row pass, from varint lists and from Maps alike", () => {
    const s = generatedSnapshot(600, 16, 3);
    const table = s.lexical.experience;
    const asMaps: Bm25Table = { ...table, postings: new Map([...table.postings].map(([t, p]) => [t, new Map(p)])) };
    const terms = [...table.docs.keys()];
    for (let q = 0; q < 40; q++) {
      const chosen = [terms[q % terms.length]!, terms[(q * 7 + 3) % terms.length]!, terms[(q * 13 + 5) % terms.length]!];
      const accept = (row: number) => row % 5 !== q % 5;
      const expected = rowByRow(table, chosen, accept).slice(0, 25);
      expect(expected.length).toBeGreaterThan(0);
      expect(bm25Rows(table, chosen, 25, accept)).toEqual(expected);
      expect(bm25Rows(asMaps, chosen, 25, accept)).toEqual(expected);
    }
  });

  it("texts travel as UTF-8 and read back whole, any script, for hydration and the prompt's lessons", () => {
    const scripts = ["déployer l'image du conteneur", "回滚发布分支", "🚀 roll back the canary", "plain ASCII text"];
    const s = generatedSnapshot(200, 16, 5, (i, text) => `${scripts[i % scripts.length]} ${text}`);
    const decoded = decodeSnapshot(encodeSnapshot(s));
    expect(decoded.lessons.map((l) => ({ ...l, text: l.text }))).toEqual(s.lessons);
    expect(decoded.cases.map((c) => ({ ...c, text: c.text }))).toEqual(s.cases);
    const reader = new SnapshotReader(decoded, kernel);
    const ids = s.cases.slice(0, 10).map((c) => c.id);
    expect(reader.hydrate("case", ids).map((i) => i.text)).toEqual(s.cases.slice(0, 10).map((c) => c.text));
    expect(reader.lessons(undefined).map((l) => l.text)).toEqual(s.lessons.map((l) => l.text));
  });

  it("decodedBytes weighs the codes apart, and an empty snapshot's estimate is its size", () => {
    const s = generatedSnapshot(1_000, 100, 7);
    const bytes = encodeSnapshot(s);
    const reader = new SnapshotReader(decodeSnapshot(bytes), kernel);
    expect(reader.codeBytes).toBe(1_000 * 104);
    const estimate = decodedBytes(bytes.length, reader.codeBytes);
    expect(estimate).toBeGreaterThan(bytes.length);
    expect(estimate).toBeLessThan(decodedBytes(bytes.length, 0));
    expect(decodedBytes(1_000, 0)).toBe(1_500);
  });
});
