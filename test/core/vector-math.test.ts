import { describe, expect, it } from "vitest";
import { VectorMatrix, cosine, l2normalize } from "../../src/core/vector-math";
import { seededRandom } from "../../src/core/practice/rng";

const f32 = (...xs: number[]) => Float32Array.from(xs);

/** Seeded, so the brute-force comparison is reproducible. */
const rng = seededRandom;

describe("l2normalize / cosine", () => {
  it("normalises in place and returns the same array", () => {
    const v = f32(3, 4);
    const out = l2normalize(v);
    expect(out).toBe(v);
    expect(v[0]).toBeCloseTo(0.6, 6);
    expect(v[1]).toBeCloseTo(0.8, 6);
  });

  it("leaves a zero vector zero", () => {
    const v = l2normalize(new Float32Array(4));
    expect([...v]).toEqual([0, 0, 0, 0]);
  });

  it("computes cosine by hand", () => {
    // (1·2 + 0·2) / (1 · √8) = 2/√8
    expect(cosine(f32(1, 0), f32(2, 2))).toBeCloseTo(2 / Math.sqrt(8), 6);
    expect(cosine(f32(1, 2), f32(-2, -4))).toBeCloseTo(-1, 6);
  });

  it("gives cosine 0 when either vector is zero", () => {
    expect(cosine(f32(0, 0), f32(1, 1))).toBe(0);
    expect(cosine(f32(1, 1), f32(0, 0))).toBe(0);
  });

  it("rejects mismatched dimensions", () => {
    expect(() => cosine(f32(1), f32(1, 2))).toThrow(RangeError);
  });
});

describe("VectorMatrix", () => {
  it("stores normalised copies without touching the caller's vector", () => {
    const m = new VectorMatrix(2);
    const v = f32(3, 4);
    m.upsert("a", v);
    expect([...v]).toEqual([3, 4]);
    const stored = m.get("a")!;
    expect(stored[0]).toBeCloseTo(0.6, 6);
    expect(stored[1]).toBeCloseTo(0.8, 6);
    expect(m.has("a")).toBe(true);
    expect(m.has("b")).toBe(false);
    expect(m.size).toBe(1);
  });

  it("returns cosine similarities best first, respecting k and minSim", () => {
    const m = new VectorMatrix(2);
    m.upsert("east", f32(1, 0));
    m.upsert("north", f32(0, 5));
    m.upsert("northeast", f32(1, 1));
    m.upsert("west", f32(-2, 0));
    const q = f32(10, 0);
    const all = m.topK(q, 10, -1);
    expect(all.map((h) => h.id)).toEqual(["east", "northeast", "north", "west"]);
    expect(all[0]!.sim).toBeCloseTo(1, 6);
    expect(all[1]!.sim).toBeCloseTo(Math.SQRT1_2, 6);
    expect(all[2]!.sim).toBeCloseTo(0, 6);
    expect(all[3]!.sim).toBeCloseTo(-1, 6);
    expect(m.topK(q, 2, -1).map((h) => h.id)).toEqual(["east", "northeast"]);
    // minSim is inclusive: the northeast vector sits at ~0.7071.
    expect(m.topK(q, 10, 0.7).map((h) => h.id)).toEqual(["east", "northeast"]);
    expect(m.topK(q, 10, 0.71).map((h) => h.id)).toEqual(["east"]);
    expect([...q]).toEqual([10, 0]);
  });

  it("applies the filter and still fills k from the remaining rows", () => {
    const m = new VectorMatrix(2);
    m.upsert("a", f32(1, 0));
    m.upsert("b", f32(1, 0.1));
    m.upsert("c", f32(1, 0.2));
    const hits = m.topK(f32(1, 0), 2, 0, (id) => id !== "a");
    expect(hits.map((h) => h.id)).toEqual(["b", "c"]);
  });

  it("breaks similarity ties by id regardless of insertion order", () => {
    const m = new VectorMatrix(2);
    for (const id of ["d", "b", "a", "c"]) m.upsert(id, f32(1, 1));
    expect(m.topK(f32(1, 1), 2, 0).map((h) => h.id)).toEqual(["a", "b"]);
    expect(m.topK(f32(1, 1), 4, 0).map((h) => h.id)).toEqual(["a", "b", "c", "d"]);
  });

  it("returns nothing for k <= 0 or an empty matrix", () => {
    const m = new VectorMatrix(2);
    expect(m.topK(f32(1, 0), 3, -1)).toEqual([]);
    m.upsert("a", f32(1, 0));
    expect(m.topK(f32(1, 0), 0, -1)).toEqual([]);
    expect(m.topK(f32(1, 0), -1, -1)).toEqual([]);
  });

  it("overwrites on upsert of an existing id", () => {
    const m = new VectorMatrix(2);
    m.upsert("a", f32(1, 0));
    m.upsert("a", f32(0, 1));
    expect(m.size).toBe(1);
    const [hit] = m.topK(f32(0, 1), 1, -1);
    expect(hit!.id).toBe("a");
    expect(hit!.sim).toBeCloseTo(1, 6);
  });

  it("swap-removes, keeping the moved row addressable", () => {
    const m = new VectorMatrix(2);
    m.upsert("a", f32(1, 0));
    m.upsert("b", f32(0, 1));
    m.upsert("c", f32(-1, 0));
    expect(m.remove("a")).toBe(true);
    expect(m.remove("a")).toBe(false);
    expect(m.size).toBe(2);
    expect(m.has("a")).toBe(false);
    // "c" was moved into "a"'s slot; it must still be found and updated under its own id.
    expect(m.topK(f32(-1, 0), 1, -1)[0]!.id).toBe("c");
    m.upsert("c", f32(0, -1));
    expect(m.size).toBe(2);
    expect(m.topK(f32(0, -1), 1, -1)[0]!.id).toBe("c");
    expect(m.topK(f32(1, 0), 5, 0.5)).toEqual([]);
    // Removing the last row is the no-move case.
    expect(m.remove("c")).toBe(true);
    expect(m.topK(f32(0, 1), 5, -1).map((h) => h.id)).toEqual(["b"]);
  });

  it("grows by doubling and keeps earlier rows intact", () => {
    const m = new VectorMatrix(3, 2);
    expect(m.capacity).toBe(2);
    for (let i = 0; i < 5; i++) m.upsert(`v${i}`, f32(i + 1, 1, 0));
    expect(m.capacity).toBe(8);
    expect(m.size).toBe(5);
    const v0 = m.get("v0")!;
    expect(v0[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(v0[1]).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it("rejects vectors of the wrong dimensionality", () => {
    const m = new VectorMatrix(3);
    expect(() => m.upsert("a", f32(1, 2))).toThrow(RangeError);
    expect(() => m.topK(f32(1, 2), 1, 0)).toThrow(RangeError);
    expect(() => new VectorMatrix(0)).toThrow(RangeError);
  });

  it("matches a brute-force ranking on random data, also after removals", () => {
    const dims = 37; // not a multiple of 4, to cover the unrolled loop's remainder
    const rand = rng(42);
    const m = new VectorMatrix(dims, 4);
    const vecs = new Map<string, Float32Array>();
    for (let i = 0; i < 300; i++) {
      const v = new Float32Array(dims);
      for (let j = 0; j < dims; j++) v[j] = rand() - 0.5;
      vecs.set(`id${i}`, v);
      m.upsert(`id${i}`, v);
    }
    for (let i = 0; i < 300; i += 7) {
      m.remove(`id${i}`);
      vecs.delete(`id${i}`);
    }
    const q = new Float32Array(dims);
    for (let j = 0; j < dims; j++) q[j] = rand() - 0.5;

    const expected = [...vecs]
      .map(([id, v]) => ({ id, sim: cosine(q, v) }))
      .filter((h) => h.sim >= 0.1 && !h.id.endsWith("3"))
      .sort((a, b) => b.sim - a.sim)
      .slice(0, 15);
    const got = m.topK(q, 15, 0.1, (id) => !id.endsWith("3"));
    expect(got.map((h) => h.id)).toEqual(expected.map((h) => h.id));
    got.forEach((h, i) => expect(h.sim).toBeCloseTo(expected[i]!.sim, 5));
  });
});
