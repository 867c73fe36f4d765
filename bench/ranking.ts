// The ranking step alone, in-process (no HTTP, no Durable Object, no SQLite): a top-k scan over
// N stored 384-dim hash-embedder vectors, then rank() (z-scored blend of sim and Q) on the top-k1
// hits, with two kernels in the same run:
//
//   old  VectorMatrix.topK: the scalar float32 scan every local query paid before the int8 index
//        (still what the Vectorize adapter's small overlay uses);
//   new  Int8Matrix.topK: the WebAssembly SIMD int8 first pass plus the exact float re-score of its
//        best rows, the local index the agent uses now. Its float vectors come from a Map here;
//        in the Durable Object they are read from SQLite, which the HTTP numbers include.
//
// Exactness: recall@20 of the new kernel against the old one's top 20 on the same queries, with
// the agent's default threshold and with none (every query then has 20 results to agree on).
// Footprint: the index's typed memory (float32 buffer, or the WebAssembly memory) plus the measured
// heap growth of building it (ids, maps; for the new one also the id → kind map LocalVectorIndex keeps).
// Query embedding is timed separately and is not part of the ranking step.
//
//   node_modules/.bin/tsx bench/ranking.ts [--sizes 1000,10000,50000] [--iters 300] [--json]
//
// With --json the last stdout line is a JSON object keyed by size (used by bench/run.mjs).
import { performance } from "node:perf_hooks";
import { Int8Matrix } from "../src/core/int8-matrix";
import { int8ScanWasm } from "../src/core/int8-scan-wasm";
import { VectorMatrix, type Hit } from "../src/core/vector-math";
import { rank } from "../src/core/scoring";
import { defaultAgentConfig } from "../src/core/agent-config";
import { hashEmbed, HASH_DIMS } from "../src/core/hash-embedder";
import { HASH_SIMILARITY_THRESHOLD } from "../src/adapters/embedders/hash";
// @ts-expect-error -- plain ESM helper shared with run.mjs, without types
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

type Stats = ReturnType<typeof stats>;
function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), mean, max: s[s.length - 1] ?? NaN };
}

const gc = (globalThis as { gc?: () => void }).gc;
/** JavaScript heap in use (ids, maps), after a full collection when the process allows one (--expose-gc). */
function heapBytes(): number {
  gc?.();
  return process.memoryUsage().heapUsed;
}

const sizes = (arg("--sizes") ?? "1000,10000,50000")
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
const iters = Math.max(10, Number(arg("--iters") ?? 300));
const asJson = process.argv.includes("--json");
const { k1, k2, lambda: lambdas } = defaultAgentConfig();
const threshold = HASH_SIMILARITY_THRESHOLD;
const lambda = lambdas.default;
const RECALL_K = 20;
const RECALL_QUERIES = 100;
// Node compiles WebAssembly from bytes (Workers import the built .wasm instead); the Workers types only know the latter.
const kernel = new (WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module)(int8ScanWasm());

const maxN = Math.max(...sizes);
const texts = (corpus(maxN) as { text: string }[]).map((e) => e.text);
const qs = (queries(iters + 50, 99) as string[]).map((q) => hashEmbed(q, HASH_DIMS));
const results: Record<string, unknown> = {};

const recall = (got: Hit[], want: Hit[]) => {
  if (!want.length) return 1;
  const ids = new Set(got.map((h) => h.id));
  return want.filter((h) => ids.has(h.id)).length / want.length;
};

for (const n of sizes) {
  const ids = Array.from({ length: n }, (_, i) => `exp_${i.toString(36).padStart(8, "0")}`);
  const vectors = ids.map((_, i) => hashEmbed(texts[i]!, HASH_DIMS));
  const r = rng(n);
  const qOf = new Map(ids.map((id) => [id, r() * 2 - 1]));
  const floats = new Map(ids.map((id, i) => [id, vectors[i]!]));
  const exact = (want: readonly string[]) => new Map(want.map((id) => [id, floats.get(id)!]));

  let before = heapBytes();
  let t0 = performance.now();
  const oldM = new VectorMatrix(HASH_DIMS, n);
  for (let i = 0; i < n; i++) oldM.upsert(ids[i]!, vectors[i]!);
  const oldBuildMs = performance.now() - t0;
  const oldTyped = oldM.capacity * HASH_DIMS * 4;
  const oldHeld = oldTyped + heapBytes() - before;

  before = heapBytes();
  t0 = performance.now();
  const newM = new Int8Matrix(HASH_DIMS, kernel, n);
  for (let i = 0; i < n; i++) newM.upsert(ids[i]!, vectors[i]!);
  // LocalVectorIndex's id → kind map, which the agent holds beside the matrix.
  const kindOf = new Map(ids.map((id) => [id, "experience"]));
  const newBuildMs = performance.now() - t0;
  const newHeld = newM.bytes + heapBytes() - before;
  if (kindOf.size !== newM.size) throw new Error("index sizes disagree");

  const kernels = {
    old: (q: Float32Array, k: number, min: number) => oldM.topK(q, k, min),
    new: (q: Float32Array, k: number, min: number) => newM.topK(q, k, min, exact),
  };
  const out: Record<string, unknown> = { n, threshold };
  const seen: Record<string, Hit[][]> = { old: [], new: [] };
  for (const [name, topK] of Object.entries(kernels)) {
    for (let i = 0; i < 50; i++) topK(qs[iters + i]!, k1, threshold); // let the JIT settle
    const total: number[] = [];
    const topk: number[] = [];
    const rk: number[] = [];
    let hitSum = 0;
    for (let i = 0; i < iters; i++) {
      const a = performance.now();
      const hits = topK(qs[i]!, k1, threshold);
      const b = performance.now();
      seen[name]!.push(hits);
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
    out[name] = { meanHits: hitSum / iters, step: stats(total), topK: stats(topk), rank: stats(rk) };
  }

  // At the threshold, the timed calls' own results (k1 = 20) are compared; without one, a fresh
  // top 20 of the first RECALL_QUERIES queries (the float scan is the slow part of this bench).
  let atThreshold = 0;
  for (let i = 0; i < iters; i++) atThreshold += recall(seen.new![i]!.slice(0, RECALL_K), seen.old![i]!.slice(0, RECALL_K));
  const unQueries = Math.min(iters, RECALL_QUERIES);
  let unthresholded = 0;
  for (let i = 0; i < unQueries; i++) unthresholded += recall(kernels.new(qs[i]!, RECALL_K, -1), kernels.old(qs[i]!, RECALL_K, -1));
  out.recall = {
    k: RECALL_K,
    atThreshold: atThreshold / iters,
    unthresholded: unthresholded / unQueries,
    queries: { atThreshold: iters, unthresholded: unQueries },
  };
  out.footprint = {
    old: { typedBytes: oldTyped, heldBytes: oldHeld, buildMs: oldBuildMs },
    new: { typedBytes: newM.bytes, heldBytes: newHeld, buildMs: newBuildMs },
    measured: Boolean(gc),
  };

  // Query embedding cost (done once per retrieval in the DO, before the scan).
  const embed: number[] = [];
  for (const t of queries(iters, 1234) as string[]) {
    const a = performance.now();
    hashEmbed(t, HASH_DIMS);
    embed.push(performance.now() - a);
  }
  out.embedQuery = stats(embed);
  results[n] = out;
  if (!asJson) {
    const o = out as { old: { step: Stats }; new: { step: Stats }; recall: { atThreshold: number; unthresholded: number } };
    console.log(
      `N=${n}: rank step p50 old ${o.old.step.p50.toFixed(3)} ms → new ${o.new.step.p50.toFixed(3)} ms (${(o.old.step.p50 / o.new.step.p50).toFixed(1)}×), p99 ${o.old.step.p99.toFixed(3)} → ${o.new.step.p99.toFixed(3)}; recall@${RECALL_K} ${o.recall.atThreshold.toFixed(4)} (threshold ${threshold}) / ${o.recall.unthresholded.toFixed(4)} (none); held ${(oldHeld / 2 ** 20).toFixed(1)} → ${(newHeld / 2 ** 20).toFixed(1)} MiB${gc ? "" : " (no --expose-gc: rough)"}`,
    );
  }
}
if (asJson) console.log(JSON.stringify(results));
