import { describe, expect, it } from "vitest";
import int8Scan from "../../src/adapters/vector-indexes/int8-scan.wasm";
import { DEFAULT_RESCORE, encodeCode, Int8Matrix, quantize } from "../../src/core/int8-matrix";
import { seededRandom } from "../../src/core/practice/rng";
import { VectorMatrix } from "../../src/core/vector-math";

/**
 * A seeded corpus shaped like real embeddings: clusters of topics, each memory a topic centre plus
 * noise, so many rows sit close together and near-ties decide the top of the ranking.
 */
function corpus(n: number, dims: number, seed: number) {
  const rand = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
  const centres = Array.from({ length: 12 }, () => Float32Array.from({ length: dims }, gauss));
  const near = (c: Float32Array, spread: number) => Float32Array.from(c, (x) => x + spread * gauss());
  const vectors = Array.from({ length: n }, (_, i) => near(centres[i % centres.length]!, 0.8));
  const queries = Array.from({ length: 40 }, (_, i) => near(centres[(i * 5) % centres.length]!, 1));
  return { vectors, queries };
}

function indexes(vectors: Float32Array[], dims: number) {
  const exact = new VectorMatrix(dims, vectors.length);
  const fast = new Int8Matrix(dims, int8Scan, 16);
  const floats = new Map<string, Float32Array>();
  vectors.forEach((v, i) => {
    const id = `m${String(i).padStart(5, "0")}`;
    exact.upsert(id, v);
    fast.upsert(id, v);
    floats.set(id, v);
  });
  const lookups: number[] = [];
  const source = (ids: readonly string[]) => {
    lookups.push(ids.length);
    return new Map(ids.map((id) => [id, floats.get(id)!]));
  };
  return { exact, fast, source, lookups };
}

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

describe("Int8Matrix", () => {
  it("quantised scan agrees with the exact scan on the top results", () => {
    const dims = 384;
    const { vectors, queries } = corpus(3000, dims, 11);
    const { exact, fast, source, lookups } = indexes(vectors, dims);
    let firstPassAgreed = 0;
    for (const q of queries) {
      for (const minSim of [-1, 0.3]) {
        const want = exact.topK(q, 20, minSim);
        const got = fast.topK(q, 20, minSim, source);
        expect(ids(got)).toEqual(ids(want));
        got.forEach((h, i) => expect(h.sim).toBeCloseTo(want[i]!.sim, 5));
      }
      // The first pass alone (nothing re-scored beyond the 20 it returns) already ranks nearly right.
      const firstPass = new Set(ids(fast.topK(q, 20, -1, source, { rescore: 20 })));
      firstPassAgreed += ids(exact.topK(q, 20, -1)).filter((id) => firstPass.has(id)).length;
    }
    expect(firstPassAgreed / (queries.length * 20)).toBeGreaterThan(0.9);
    // Only the first pass's best rows are read back as floats, never the whole corpus.
    expect(Math.max(...lookups)).toBe(DEFAULT_RESCORE);
  });

  it("scans any dimension, including the zero padding up to 16 lanes and the extreme codes", () => {
    const rand = seededRandom(3);
    for (const dims of [1, 15, 16, 17, 100]) {
      const { vectors, queries } = corpus(300, dims, dims);
      vectors[0] = Float32Array.from({ length: dims }, (_, i) => (i % 2 ? -1 : 1));
      const { exact, fast, source } = indexes(vectors, dims);
      // What the kernel must compute: each row's scale times the integer dot product of the codes.
      const rows = vectors.map((v) => {
        const codes = new Int8Array(dims);
        return { codes, scale: quantize(v, codes) };
      });
      for (const q of [...queries.slice(0, 10), vectors[0]!, Float32Array.from({ length: dims }, () => rand() - 0.5)]) {
        const qCodes = new Int8Array(dims);
        quantize(q, qCodes);
        const reference = rows
          .map((r, i) => ({ id: `m${String(i).padStart(5, "0")}`, s: r.scale * r.codes.reduce((acc, c, j) => acc + c * qCodes[j]!, 0) }))
          .sort((a, b) => b.s - a.s)
          .slice(0, 10);
        const firstPass = ids(fast.topK(q, 10, -1, source, { rescore: 10 }));
        expect(firstPass.sort()).toEqual(reference.map((r) => r.id).sort());
        expect(ids(fast.topK(q, 10, -1, source))).toEqual(ids(exact.topK(q, 10, -1)));
      }
    }
  });

  it("ranks by the kernel's integer dot product times the row scales", () => {
    const dims = 40;
    const rows = [
      Float32Array.from({ length: dims }, (_, i) => (i < 20 ? 1 : 0)),
      Float32Array.from({ length: dims }, (_, i) => (i < 10 ? 1 : 0)),
      Float32Array.from({ length: dims }, (_, i) => (i >= 20 ? -1 : 0)),
    ];
    const { fast, source } = indexes(rows, dims);
    const q = Float32Array.from({ length: dims }, (_, i) => (i < 20 ? 1 : -1));
    // Re-scoring nothing but the first pass's own order: it must already be right.
    const hits = fast.topK(q, 3, -1, (want) => new Map([...source(want)]), { rescore: 3 });
    expect(ids(hits)).toEqual(["m00000", "m00002", "m00001"]);
    expect(hits.map((h) => h.sim)).toEqual([expect.closeTo(Math.SQRT1_2, 6), expect.closeTo(Math.SQRT1_2, 6), expect.closeTo(0.5, 6)]);
  });

  it("loads stored codes exactly as it quantises vectors, and keeps rows dense through removals", () => {
    const dims = 24;
    const { vectors, queries } = corpus(200, dims, 5);
    const { exact, fast, source } = indexes(vectors, dims);
    const loaded = new Int8Matrix(dims, int8Scan, 4);
    // Two pages as SQLite stores them, the second growing the matrix past its initial capacity.
    const page = (from: number, to: number) => {
      const codes = vectors.slice(from, to).map((v) => encodeCode(v));
      const bytes = new Uint8Array(codes.reduce((n, c) => n + c.length, 0));
      codes.forEach((c, i) => bytes.set(c, i * c.length));
      loaded.appendCodes(
        codes.map((_, i) => `m${String(from + i).padStart(5, "0")}`),
        bytes,
      );
    };
    page(0, 3);
    // The id index is built here, so the second page must extend it rather than leave it stale.
    expect(loaded.has("m00002")).toBe(true);
    page(3, 200);
    expect(loaded.has("m00150")).toBe(true);
    for (let i = 0; i < 200; i += 3) {
      const id = `m${String(i).padStart(5, "0")}`;
      exact.remove(id);
      expect(fast.remove(id)).toBe(true);
      expect(loaded.remove(id)).toBe(true);
    }
    expect(fast.remove("m00000")).toBe(false);
    expect(loaded.size).toBe(exact.size);
    for (const q of queries.slice(0, 10)) {
      expect(ids(loaded.topK(q, 15, -1, source, { rescore: 15 }))).toEqual(ids(fast.topK(q, 15, -1, source, { rescore: 15 })));
      expect(ids(loaded.topK(q, 15, -1, source))).toEqual(ids(exact.topK(q, 15, -1)));
    }
  });

  it("re-scored by its own codes, read by row, a scan answers as re-scored through decode by id", () => {
    const dims = 24;
    const { vectors, queries } = corpus(300, dims, 9);
    const { fast } = indexes(vectors, dims);
    for (let i = 0; i < 300; i += 7) fast.remove(`m${String(i).padStart(5, "0")}`);
    for (const q of queries.slice(0, 12)) {
      const byRow = fast.topK(q, 10, 0.1, "codes");
      expect(byRow.length).toBeGreaterThan(0);
      expect(byRow).toEqual(fast.topK(q, 10, 0.1, (ids) => fast.decode(ids)));
      expect(byRow).toEqual(fast.topK(q, 10, 0.1, "codes", { filter: () => true }));
    }
  });

  it("quantises within half a step per dimension and keeps codes in [-127, 127]", () => {
    const v = Float32Array.from([3, -4, 0, 0.001]);
    const codes = new Int8Array(4);
    const scale = quantize(v, codes);
    expect([...codes]).toEqual([95, -127, 0, 0]); // (0.6, -0.8, 0, 0.0002) in steps of 0.8/127
    expect(scale).toBeCloseTo(0.8 / 127, 9);
    expect(quantize(new Float32Array(3), new Int8Array(3))).toBe(0);
  });
});
