import { describe, expect, it } from "vitest";
import { LocalVectorIndex } from "../../src/adapters/vector-indexes/local";

const v = (...xs: number[]) => Float32Array.from(xs);

const localIndex = (dims: number) => new LocalVectorIndex(dims);

describe("LocalVectorIndex", () => {
  it("finds nearest vectors best first with cosine similarity", async () => {
    const idx = localIndex(3);
    await idx.upsert([
      { id: "x", vector: v(1, 0, 0), kind: "exp" },
      { id: "y", vector: v(0, 1, 0), kind: "exp" },
      { id: "xy", vector: v(1, 1, 0), kind: "exp" },
    ]);
    const hits = await idx.query(v(2, 0, 0), { topK: 2, minSim: -1 });
    expect(hits.map((h) => h.id)).toEqual(["x", "xy"]);
    expect(hits[0]!.sim).toBeCloseTo(1, 6);
    expect(hits[1]!.sim).toBeCloseTo(Math.SQRT1_2, 6);
    expect(idx.kind).toBe("local");
    expect(idx.size).toBe(3);
  });

  it("applies minSim", async () => {
    const idx = localIndex(2);
    await idx.upsert([
      { id: "near", vector: v(1, 0.1), kind: "k" },
      { id: "far", vector: v(0, 1), kind: "k" },
    ]);
    expect((await idx.query(v(1, 0), { topK: 10, minSim: 0.5 })).map((h) => h.id)).toEqual(["near"]);
  });

  it("filters by kind and merges kinds exactly when no kind is given", async () => {
    const idx = localIndex(2);
    await idx.upsert([
      { id: "e1", vector: v(1, 0), kind: "experience" },
      { id: "e2", vector: v(1, 1), kind: "experience" },
      { id: "c1", vector: v(1, 0.05), kind: "case" },
    ]);
    expect((await idx.query(v(1, 0), { topK: 5, minSim: 0, kind: "case" })).map((h) => h.id)).toEqual(["c1"]);
    expect((await idx.query(v(1, 0), { topK: 2, minSim: 0 })).map((h) => h.id)).toEqual(["e1", "c1"]);
    expect(await idx.query(v(1, 0), { topK: 5, minSim: 0, kind: "none-such" })).toEqual([]);
  });

  it("moves an id re-upserted under another kind instead of keeping both", async () => {
    const idx = localIndex(2);
    await idx.upsert([{ id: "m", vector: v(1, 0), kind: "a" }]);
    await idx.upsert([{ id: "m", vector: v(0, 1), kind: "b" }]);
    expect(idx.size).toBe(1);
    expect(await idx.query(v(1, 0), { topK: 5, minSim: -1, kind: "a" })).toEqual([]);
    const [hit] = await idx.query(v(0, 1), { topK: 5, minSim: -1 });
    expect(hit).toEqual({ id: "m", sim: expect.closeTo(1, 6) });
  });

  it("removes ids and ignores unknown ones", async () => {
    const idx = localIndex(2);
    await idx.upsert([
      { id: "a", vector: v(1, 0), kind: "k" },
      { id: "b", vector: v(0, 1), kind: "k" },
    ]);
    await idx.remove(["a", "nope"]);
    expect(idx.size).toBe(1);
    expect(idx.has("a")).toBe(false);
    expect((await idx.query(v(1, 0), { topK: 5, minSim: -1 })).map((h) => h.id)).toEqual(["b"]);
  });

  it("rejects a batch with a wrong-sized vector without storing any of it", async () => {
    const idx = localIndex(2);
    await expect(
      idx.upsert([
        { id: "ok", vector: v(1, 0), kind: "k" },
        { id: "bad", vector: v(1, 0, 0), kind: "k" },
      ]),
    ).rejects.toThrow(RangeError);
    expect(idx.size).toBe(0);
    await expect(idx.query(v(1), { topK: 1, minSim: 0 })).rejects.toThrow(RangeError);
  });

  it("returns nothing for topK 0", async () => {
    const idx = localIndex(2);
    await idx.upsert([{ id: "a", vector: v(1, 0), kind: "k" }]);
    expect(await idx.query(v(1, 0), { topK: 0, minSim: -1 })).toEqual([]);
  });
});
