// What an isolate holds for one agent's snapshot: a generated library of N memories (half lessons,
// half cases, the bench corpus's texts and tags), encoded as the object publishes it, then decoded
// and wrapped in a SnapshotReader as a Worker does. Reports the published bytes, the heap and
// typed memory the decoded reader keeps (after GC), and what decodedBytes estimates for it.
//
//   node --expose-gc node_modules/tsx/dist/cli.mjs bench/snapshot-heap.ts [--sizes 10000,100000] [--dims 100,384]
//     [--no-lexical] [--no-text]  (empties those sections first: what each takes is the difference)
import { int8ScanWasm } from "../src/core/int8-scan-wasm";
import { decodeSnapshot, encodeSnapshot } from "../src/core/ranking/snapshot";
import { SnapshotReader } from "../src/core/ranking/snapshot-source";
import { decodedBytes } from "../src/core/ranking/snapshot-footprint";
import { generatedSnapshot } from "./lib/generated-snapshot";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const used = () => {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};
const MiB = (b: number) => (b / 1_048_576).toFixed(1);

// Node compiles WebAssembly from bytes (Workers import the built .wasm instead); the Workers types only know the latter.
const kernel = new (WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module)(int8ScanWasm());
const rows: string[] = [];
for (const dims of arg("--dims", "100,384").split(",").map(Number)) {
  for (const n of arg("--sizes", "10000,100000").split(",").map(Number)) {
    const s = generatedSnapshot(n, dims);
    if (process.argv.includes("--no-lexical"))
      for (const k of ["experience", "case"] as const)
        Object.assign(s.lexical[k], { docs: new Map(), postings: new Map(), lengths: new Map() });
    if (process.argv.includes("--no-text")) for (const i of [...s.lessons, ...s.cases]) i.text = "";
    let bytes: Uint8Array | null = encodeSnapshot(s);
    const before = used();
    const published = bytes.length;
    const t0 = performance.now();
    const reader = new SnapshotReader(decodeSnapshot(bytes), kernel);
    const decodeMs = performance.now() - t0;
    const peak = process.memoryUsage().heapUsed + process.memoryUsage().external - before;
    bytes = null;
    const held = used() - before + published;
    rows.push(
      `| ${n} | ${dims} | ${MiB(published)} | ${MiB(held)} | ${MiB(reader.scanBytes)} | ${MiB(decodedBytes(published, reader.codeBytes))} | ${MiB(peak)} | ${decodeMs.toFixed(0)} |`,
    );
    console.error(rows.at(-1));
  }
}
console.log(
  "| memories | dims | published MiB | held after decode MiB | of which scans MiB | decodedBytes estimate MiB | peak during decode MiB | decode ms |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
