// Retrieval quality on bench/retrieval-set in-process, in about a second instead of the minutes
// bench/quality.mjs takes through wrangler dev: for iterating on the offline ranking before
// confirming a change through the Worker. The embedders are the Worker's own code and word table;
// the lexical channel is BM25 computed here the way SQLite FTS5 computes it (the same porter
// stems, k1 = 1.2, b = 0.75, the query's content words ORed as ftsMatchOf builds them), which agrees
// with the Worker's lexical row to within a query or two. Hybrid rows fuse the two channels the way
// the Durable Object does (each channel's top K1, the vector channel gated at the embedder's
// threshold, reciprocal-rank fusion), ties by lesson id rather than by random item id.
//
// It also prints what bounds any ranking built from these two channels: the share of queries whose
// lesson is among either channel's first k, and the share sharing no content word stem with it.
//
//   node_modules/.bin/tsx bench/quality-offline.ts
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaultAgentConfig } from "../src/core/agent-config";
import { hashEmbed, tokenize } from "../src/core/hash-embedder";
import { ftsMatchOf, ftsTerms } from "../src/core/lexical";
import { fuseRanks } from "../src/core/scoring";
import { WordVectors } from "../src/core/word-vectors";
import { HASH_SIMILARITY_THRESHOLD } from "../src/adapters/embedders/hash";
import { SEMANTIC_SIMILARITY_THRESHOLD } from "../src/adapters/embedders/semantic";
import { lessons, metrics, queries, SPLITS } from "./lib/retrieval-set.mjs";
import { ftsTermOf } from "../src/core/ranking/fts5-porter";

const here = path.dirname(fileURLToPath(import.meta.url));
/** How many candidates each channel contributes to the fusion: the agent default k1. */
const K1 = defaultAgentConfig().k1;
/** The stem FTS5's porter tokenizer indexes a word under (non-ASCII words as they are). */
const stem = (word: string) => ftsTermOf(word) ?? word;
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/** The stems of the terms the lexical channel's MATCH expression holds for a text. */
const matchStems = (text: string) => (ftsMatchOf(ftsTerms(text))?.split(" OR ") ?? []).map((t) => stem(t.slice(1, -1)));

const byScore = (scores: number[]) => scores.map((s, j) => ({ id: lessons[j]!.id, s })).sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1));

/** FTS5's bm25() over the lessons: IDF floored at 1e-6, every matched query term summed. */
function bm25Ranker() {
  const docs = lessons.map((l) => tokenize(l.text).map(stem));
  const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.max(1e-6, Math.log((docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5)));
  const tf = docs.map((d) => d.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string, number>()));
  return (query: string): string[] => {
    const terms = matchStems(query);
    const scores = docs.map((d, j) => {
      let s = 0;
      for (const t of terms) {
        const f = tf[j]!.get(t) ?? 0;
        if (f) s += (idf(t) * f * (BM25_K1 + 1)) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * d.length) / avg));
      }
      return s;
    });
    return byScore(scores)
      .filter((x) => x.s > 0)
      .map((x) => x.id);
  };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, d) => s + x * b[d]!, 0);

/** Every lesson by cosine to the query, with its cosine. */
function vectorRanker(embed: (text: string) => Float32Array) {
  const vectors = lessons.map((l) => embed(l.text));
  return (query: string) => {
    const q = embed(query);
    return byScore(vectors.map((v) => dot(q, v)));
  };
}

function hybrid(vector: { id: string; s: number }[], lexical: string[], threshold: number): string[] {
  const fused = fuseRanks([
    vector
      .filter((v) => v.s >= threshold)
      .slice(0, K1)
      .map((v) => v.id),
    lexical.slice(0, K1),
  ]);
  return [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
}

const bin = readFileSync(path.join(here, "..", "generated", "word-vectors.bin"));
const words = WordVectors.parse(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
const bm25 = bm25Ranker();
const lexical = queries.map((q) => bm25(q.query));
const rows: { name: string; rankings: string[][] }[] = [{ name: "lexical (BM25 as FTS5)", rankings: lexical }];
const semantic: { id: string; s: number }[][] = [];
for (const [name, embed, threshold] of [
  ["hash", (t: string) => hashEmbed(t), HASH_SIMILARITY_THRESHOLD],
  ["semantic", (t: string) => words.embed(t), SEMANTIC_SIMILARITY_THRESHOLD],
] as const) {
  const rank = vectorRanker(embed);
  const vector = queries.map((q) => rank(q.query));
  if (name === "semantic") semantic.push(...vector);
  rows.push({ name: `${name}, vector channel, every lesson ranked`, rankings: vector.map((v) => v.map((x) => x.id)) });
  rows.push({ name: `${name}, hybrid at threshold ${threshold}`, rankings: vector.map((v, i) => hybrid(v, lexical[i]!, threshold)) });
}

const f = (x: number) => x.toFixed(3);
console.log(`| ranking | ${SPLITS.map((s) => `${s.name}: recall@1 / recall@5 / MRR / empty`).join(" | ")} |`);
console.log(`|---|${SPLITS.map(() => "---:").join("|")}|`);
for (const r of rows)
  console.log(`| ${r.name} | ${SPLITS.map((s) => Object.values(metrics(r.rankings, s.suffix)).map(f).join(" / ")).join(" | ")} |`);

const content = (text: string) => new Set(matchStems(text));
const lessonOf = new Map(lessons.map((l) => [l.id, l]));
const share = (hit: (q: (typeof queries)[number], i: number) => boolean) => f(queries.filter(hit).length / queries.length);
console.log(
  `\nqueries sharing no content word stem with their lesson: ${share((q) => {
    const mine = content(lessonOf.get(q.relevant[0]!)!.text);
    return ![...content(q.query)].some((t) => mine.has(t));
  })}`,
);
for (const k of [5, 10, 20, 50]) {
  console.log(
    `lesson among the first ${k} of the semantic vector or the lexical channel: ${share(
      (q, i) => semantic[i]!.slice(0, k).some((v) => v.id === q.relevant[0]) || lexical[i]!.slice(0, k).includes(q.relevant[0]!),
    )}`,
  );
}
