import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bm25Rows, type Bm25Table, PostingArray } from "../../src/core/ranking/bm25";
import { decodeSnapshot, encodeSnapshot } from "../../src/core/ranking/snapshot";
import { SnapshotReader } from "../../src/core/ranking/snapshot-source";
import { decodedBytes } from "../../src/core/ranking/snapshot-footprint";
import { int8ScanWasm } from "../../src/core/int8-scan-wasm";
import { generatedSnapshot, lexicalTable } from "../../bench/lib/generated-snapshot";
import type { ContentDelta } from "../../src/core/ranking/snapshot-delta";
import { encodeCode } from "../../src/core/int8-matrix";

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

const concatCodes = (codes: Uint8Array[]) => {
  const out = new Uint8Array(codes.reduce((n, c) => n + c.length, 0));
  codes.forEach((c, i) => out.set(c, i * c.length));
  return out;
};

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

  it("without() gives a rebuilt list's postings through any run of drops and appends, past the end or not", () => {
    fc.assert(
      fc.property(
        postings,
        fc.array(fc.tuple(fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 4 })), {
          maxLength: 6,
        }),
        (entries, steps) => {
          let list = PostingArray.of(entries);
          let expected = entries;
          for (const [picks, fresh] of steps) {
            const last = expected.at(-1)?.[0] ?? 0;
            // Drops of held rows and of rows never held; adds past the end (a new item) and, when dropped, in place (an edit).
            const drop = new Set([...picks.map((i) => expected[i % Math.max(1, expected.length)]?.[0] ?? i + 1), last + 1000]);
            const kept = expected.filter(([row]) => !drop.has(row));
            const add = [...new Set([...fresh.map((n) => last + n), ...[...drop].filter((_, i) => i % 2 === 0)])]
              .filter((row) => !kept.some(([r]) => r === row))
              .sort((a, b) => a - b)
              .map((row): [number, number] => [row, (row % 9) + 1]);
            list = list.without(drop, add);
            expected = kept.concat(add).sort((a, b) => a[0] - b[0]);
            expect([...list]).toEqual(expected);
            expect(list.size).toBe(expected.length);
          }
        },
      ),
    );
  });

  it("a content delta applied in place leaves the lessons, labels and lexical statistics a fresh build would have", () => {
    // 7 changes are spliced in; 70 rebuild the list in one pass.
    for (const changes of [7, 70]) {
      const s = generatedSnapshot(400, 8, 11);
      const reader = new SnapshotReader(decodeSnapshot(encodeSnapshot(s)), kernel);
      const lessons = s.lessons.map((l) => ({ ...l }));
      const removed = lessons.filter((_, i) => i % Math.floor(lessons.length / changes) === 1).slice(0, Math.ceil(changes / 3));
      const edited = lessons.filter((_, i) => i % Math.floor(lessons.length / changes) === 2).slice(0, Math.ceil(changes / 3));
      let seq = lessons.at(-1)!.seq;
      const added = Array.from({ length: changes - removed.length - edited.length }, (_, i) => ({
        ...lessons[i]!,
        id: `exp_added_${i}`,
        seq: ++seq,
        text: `added lesson ${i}: retry the upload after refreshing the token`,
      }));
      for (const l of edited) l.text = `edited: ${l.text.split(" ").reverse().join(" ")}`;
      const gone = new Set(removed.map((l) => l.id));
      const final = [...lessons.filter((l) => !gone.has(l.id)), ...added];
      const fresh = lexicalTable(final.map((l) => l.text));
      const atSeq = (row: number) => final[row - 1]!.seq;
      const expected = {
        docs: fresh.docs,
        postings: new Map([...fresh.postings].map(([t, p]) => [t, [...p].map(([row, tf]) => [atSeq(row), tf])])),
        lengths: new Map([...fresh.lengths].map(([row, n]) => [atSeq(row), n])),
      };
      const changed = [...edited, ...added];
      const row = (l: (typeof final)[number]) => final.indexOf(l) + 1;
      const delta: ContentDelta = {
        contentVersion: s.contentVersion + 1,
        libraryVersion: s.libraryVersion + 1,
        model: s.model,
        dims: s.dims,
        config: s.config,
        signing: s.signing,
        subscriptions: [],
        anyWhen: false,
        removed: removed.map((l) => l.id),
        lessons: changed.map(({ label: _label, ...l }) => l),
        cases: [],
        vectors: {
          experience: { ids: changed.map((l) => l.id), codes: concatCodes(changed.map(() => encodeCode(new Float32Array(8).fill(0.5)))) },
          case: { ids: [], codes: new Uint8Array(0) },
        },
        whens: [],
        unembedded: { experience: [], case: [] },
        lexical: {
          experience: {
            rows: fresh.rows,
            tokens: fresh.tokens,
            contentRows: fresh.rows,
            moved: [...new Set([...s.lexical.experience.docs.keys(), ...fresh.docs.keys()])].map((t) => [
              t,
              (fresh.docs.get(t) ?? 0) - (s.lexical.experience.docs.get(t) ?? 0),
            ]),
            add: changed.map((l) => [
              l.seq,
              fresh.lengths.get(row(l))!,
              [...fresh.postings].flatMap(([t, p]) => [...p].filter(([r]) => r === row(l)).map(([, tf]): [string, number] => [t, tf])),
            ]),
          },
          case: { rows: s.lexical.case.rows, tokens: s.lexical.case.tokens, contentRows: s.lexical.case.contentRows, moved: [], add: [] },
          when: { rows: 0, tokens: 0, contentRows: null, moved: [], add: [] },
        },
      };
      reader.applyContent(delta);
      const got = reader.snapshot;
      expect(got.lessons.map((l) => [l.id, l.seq, l.label, l.text])).toEqual(
        [...final].sort((a, b) => a.seq - b.seq).map((l, i) => [l.id, l.seq, `G${i}`, l.text]),
      );
      const table = got.lexical.experience;
      expect(new Map([...table.postings].map(([t, p]) => [t, [...p]]))).toEqual(expected.postings);
      expect(table.docs).toEqual(expected.docs);
      expect(table.lengths).toEqual(expected.lengths);
      expect(reader.hydrate("experience", [...gone]).length).toBe(0);
    }
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
