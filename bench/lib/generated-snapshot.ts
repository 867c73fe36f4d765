// A read model snapshot of a generated library, as an agent's object would publish it: n memories,
// half lessons and half cases (the bench corpus's texts and tags), random vectors of `dims`, the
// lexical statistics FTS5 would count for the texts. For bench/snapshot-heap.ts and the format's tests.
import { encodeCode } from "../../src/core/int8-matrix";
import { ftsTerms } from "../../src/core/lexical";
import { ftsTermOf } from "../../src/core/ranking/fts5-porter";
import { PostingArray } from "../../src/core/ranking/bm25";
import { SNAPSHOT_FORMAT, type ReadModelSnapshot } from "../../src/core/ranking/snapshot";
// @ts-expect-error -- plain ESM helper shared with run.mjs, without types
import { experienceText, rng } from "../corpus.mjs";

/** FTS5's statistics of texts at rows 1…n, as the object would read them for a table holding only those. */
export function lexicalTable(texts: readonly string[]) {
  const docs = new Map<string, number>();
  const rows = new Map<string, [number, number][]>();
  const lengths = new Map<number, number>();
  let tokens = 0;
  texts.forEach((text, i) => {
    const row = i + 1;
    const tf = new Map<string, number>();
    const words = ftsTerms(text);
    for (const w of words) {
      const t = ftsTermOf(w) ?? w;
      tf.set(t, (tf.get(t) ?? 0) + 1);
    }
    lengths.set(row, words.length);
    tokens += words.length;
    for (const [t, n] of tf) {
      docs.set(t, (docs.get(t) ?? 0) + 1);
      let p = rows.get(t);
      if (!p) rows.set(t, (p = []));
      p.push([row, n]);
    }
  });
  const postings = new Map([...rows].map(([t, p]) => [t, PostingArray.of(p)]));
  return { rows: texts.length, tokens, docs, postings, lengths, contentRows: texts.length };
}

function vector(r: () => number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  for (let i = 0; i < dims; i++) v[i] = r() - 0.5;
  return v;
}

export function generatedSnapshot(n: number, dims: number, seed = 1, textOf?: (i: number, text: string) => string): ReadModelSnapshot {
  const r = rng(seed);
  const lessons = [];
  const cases = [];
  const codes = { experience: [] as Uint8Array[], case: [] as Uint8Array[] };
  for (let i = 0; i < n; i++) {
    const drawn = experienceText(r);
    const text: string = textOf ? textOf(i, drawn.text) : drawn.text;
    const tags: string[] = drawn.tags;
    const common = {
      seq: i + 1,
      q: r(),
      tags,
      metadata: { team: `t${i % 7}` },
      createdAt: 1_700_000_000_000 + i,
      lastUsedAt: null,
      uses: 0,
    };
    if (i % 2 === 0) {
      lessons.push({
        ...common,
        seq: lessons.length + 1,
        id: `exp_${i.toString(36).padStart(20, "0")}`,
        text,
        label: `G${lessons.length}`,
        domain: null,
        probation: false,
        explore: false,
      });
      codes.experience.push(encodeCode(vector(r, dims)));
    } else {
      const more = `${text} Then: ${experienceText(r).text}`;
      cases.push({
        ...common,
        seq: cases.length + 1,
        id: `case_${i.toString(36).padStart(20, "0")}`,
        text: more.slice(0, 600),
        informative: true,
      });
      codes.case.push(encodeCode(vector(r, dims)));
    }
  }
  const cat = (parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
    let at = 0;
    for (const p of parts) out.set(p, at), (at += p.length);
    return out;
  };
  return {
    format: SNAPSHOT_FORMAT,
    incarnation: "inc",
    contentVersion: n,
    learnSeq: 0,
    libraryVersion: n,
    builtAt: 1_700_000_000_000,
    model: "bench",
    dims,
    config: {
      k1: 20,
      k2: 5,
      lambda: { default: 0.5 } as never,
      threshold: 0.2,
      decay: {} as never,
      embedder: null,
      retrievalsDays: 30,
      defaultQ: 0.5,
    },
    lessons,
    cases,
    vectors: {
      experience: { ids: lessons.map((l) => l.id), codes: cat(codes.experience) },
      case: { ids: cases.map((c) => c.id), codes: cat(codes.case) },
    },
    unembedded: { experience: [], case: [] },
    centroids: { experience: [], case: [] },
    whens: [],
    anyWhen: false,
    usageLearned: false,
    phrases: [],
    lexical: {
      experience: lexicalTable(lessons.map((l) => l.text)),
      case: lexicalTable(cases.map((c) => c.text)),
      when: { rows: 0, tokens: 0, docs: new Map(), postings: new Map(), lengths: new Map() },
    },
    reranker: { active: false } as never,
    signing: { id: "k", key: new Uint8Array(32) },
    subscriptions: [],
    shared: [],
  };
}
