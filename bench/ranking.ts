// The ranking step alone, in-process (no HTTP, no Durable Object, no SQLite): VectorMatrix.topK
// over N stored 384-dim hash-embedder vectors, then rank() (z-scored blend of sim and Q) on the
// top-k1 hits. Query embedding is timed separately and is not part of the ranking step.
//
//   node_modules/.bin/tsx bench/ranking.ts [--sizes 1000,10000,50000] [--iters 300] [--json]
//
// With --json the last stdout line is a JSON object keyed by size (used by bench/run.mjs).
import { performance } from "node:perf_hooks";
import { VectorMatrix } from "../src/core/vector-math";
import { rank, type Candidate } from "../src/core/scoring";
import { defaultAgentConfig } from "../src/core/agent-config";
import { hashEmbed, HASH_DIMS } from "../src/core/hash-embedder";
import { HASH_SIMILARITY_THRESHOLD } from "../src/adapters/embedders/hash";
// @ts-ignore -- plain ESM helper shared with run.mjs
import { corpus, queries, rng } from "./corpus.mjs";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), mean, max: s[s.length - 1] ?? NaN };
}

const sizes = (arg("--sizes") ?? "1000,10000,50000").split(",").map((s) => Number(s.trim())).filter((n) => n > 0);
const iters = Math.max(10, Number(arg("--iters") ?? 300));
const asJson = process.argv.includes("--json");
const { k1, k2, lambda: lambdas } = defaultAgentConfig();
const threshold = HASH_SIMILARITY_THRESHOLD;
const lambda = lambdas.default;

const maxN = Math.max(...sizes);
const texts = (corpus(maxN) as { text: string }[]).map((e) => e.text);
const qs = (queries(iters + 50, 99) as string[]).map((q) => hashEmbed(q, HASH_DIMS));
const results: Record<string, unknown> = {};

for (const n of sizes) {
  const t0 = performance.now();
  const m = new VectorMatrix(HASH_DIMS, n);
  const r = rng(n);
  const qOf = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const id = `exp_${i.toString(36).padStart(8, "0")}`;
    m.upsert(id, hashEmbed(texts[i]!, HASH_DIMS));
    qOf.set(id, r() * 2 - 1);
  }
  const buildMs = performance.now() - t0;

  const step = (q: Float32Array) => {
    const hits = m.topK(q, k1, threshold);
    const cands: Candidate[] = hits.map((h) => ({ id: h.id, sim: h.sim, q: qOf.get(h.id)! }));
    return { hits, ranked: rank(cands, { lambda, k1, k2, threshold }) };
  };
  // Warm-up: let the JIT settle before timing.
  for (let i = 0; i < 50; i++) step(qs[iters + i]!);

  const total: number[] = [];
  const topk: number[] = [];
  const rk: number[] = [];
  let hitSum = 0;
  for (let i = 0; i < iters; i++) {
    const q = qs[i]!;
    const a = performance.now();
    const hits = m.topK(q, k1, threshold);
    const b = performance.now();
    const ranked = rank(
      hits.map((h) => ({ id: h.id, sim: h.sim, q: qOf.get(h.id)! })),
      { lambda, k1, k2, threshold },
    );
    const c = performance.now();
    if (ranked.length > k2) throw new Error("rank returned more than k2");
    hitSum += hits.length;
    total.push(c - a);
    topk.push(b - a);
    rk.push(c - b);
  }
  // Query embedding cost (done once per retrieval in the DO, before the scan).
  const embed: number[] = [];
  const qTexts = queries(iters, 1234) as string[];
  for (const t of qTexts) {
    const a = performance.now();
    hashEmbed(t, HASH_DIMS);
    embed.push(performance.now() - a);
  }
  results[n] = { n, buildMs, meanHits: hitSum / iters, step: stats(total), topK: stats(topk), rank: stats(rk), embedQuery: stats(embed) };
  if (!asJson) {
    const s = stats(total);
    console.log(
      `N=${n}: rank step p50 ${s.p50.toFixed(3)} ms, p99 ${s.p99.toFixed(3)} ms (topK p50 ${stats(topk).p50.toFixed(3)}, rank() p50 ${stats(rk).p50.toFixed(4)}; mean hits ${(hitSum / iters).toFixed(1)}; build ${buildMs.toFixed(0)} ms)`,
    );
  }
}
if (asJson) console.log(JSON.stringify(results));
