// What the learned channels add to one retrieval at N memories, in process (no Worker, no SQLite):
// the scan of every lesson's `when` embedding (an int8 matrix, as the DO's Situations holds it) and
// of every usage centroid's direction (another int8 matrix, as UsageMemory's CentroidScan holds them,
// keeping 4·k1 rows before each centroid's length factor applies), worst case: every memory has both. Plus the
// stored bytes per memory of each. Run: npx tsx bench/learning-cost.ts [--sizes 10000,50000] [--dims 300]
import { decodeQuery, encodeCentroid, MAX_PHRASES, MAX_PHRASE_WORDS, updateCentroid } from "../src/core/usage-memory";
import { encodeCode, Int8Matrix } from "../src/core/int8-matrix";
import { int8ScanWasm } from "../src/core/int8-scan-wasm";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const sizes = (arg("--sizes") ?? "10000,50000").split(",").map(Number);
const dims = Number(arg("--dims") ?? 300);
const ITERS = 200;
const kernel = new (WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module)(int8ScanWasm());

let seed = 22;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
const vec = () => Float32Array.from({ length: dims }, random);
const p50 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const n of sizes) {
  const matrix = new Int8Matrix(dims, kernel, n);
  const codes = new Map<string, Uint8Array>();
  const usage = new Int8Matrix(dims, kernel, n);
  const usageCodes = new Map<string, Uint8Array>();
  for (let i = 0; i < n; i++) {
    const id = `exp_${i}`;
    const code = encodeCode(vec());
    codes.set(id, code);
    matrix.upsert(id, decodeQuery(code));
    const c = updateCentroid(updateCentroid(null, vec(), 1), vec(), 1)!;
    const stored = encodeCentroid(c);
    usageCodes.set(id, stored.code);
    usage.upsert(id, decodeQuery(stored.code));
  }
  const exact = (ids: readonly string[]) => new Map(ids.map((id) => [id, decodeQuery(codes.get(id)!)] as const));
  const whenMs: number[] = [];
  const usageMs: number[] = [];
  for (let it = 0; it < ITERS; it++) {
    const q = vec();
    let t = performance.now();
    matrix.topK(q, 20, 0.3, exact);
    whenMs.push(performance.now() - t);
    t = performance.now();
    usage.topK(q, 80, 0.3, (ids) => new Map(ids.map((id) => [id, decodeQuery(usageCodes.get(id)!)] as const)));
    usageMs.push(performance.now() - t);
  }
  // Stored per memory: the `when` vector (int8 code + scale) and, worst case, a full usage row:
  // MAX_PHRASES phrases of MAX_PHRASE_WORDS words of ~7 characters with their JSON weight and time.
  const whenBytes = dims + 4;
  const phraseJson = JSON.stringify(
    Array.from({ length: MAX_PHRASES }, () => ({
      text: Array(MAX_PHRASE_WORDS).fill("abcdefg").join(" "),
      weight: 1.2345,
      at: 1_764_000_000_000,
    })),
  ).length;
  const usageBytes = dims + 4 + 16 + phraseJson;
  console.log(
    `N=${n} dims=${dims}: when scan p50 ${p50(whenMs).toFixed(3)} ms, usage-centroid scan p50 ${p50(usageMs).toFixed(3)} ms (every memory with a centroid); ` +
      `stored per memory: when vector ${whenBytes} B (+ its text, ≤ 300 B), usage row ≤ ${usageBytes} B (centroid ${dims + 4} B, phrases ≤ ${phraseJson} B) before FTS5 index overhead; ` +
      `in memory: when ${(matrix.bytes / n).toFixed(0)} B, centroid ${(usage.bytes / n).toFixed(0)} B`,
  );
}
