import { describe, expect, it, vi } from "vitest";
import { VectorizeVectorIndex } from "../../src/adapters/vector-indexes/vectorize";
import { InMemoryVectorize } from "../doubles/vectorize";

const v = (...xs: number[]) => Float32Array.from(xs);
const WINDOW = 60_000;

/** One shared index (as in production) with a controllable clock. */
function setup(dims = 3) {
  const vz = new InMemoryVectorize({ dimensions: dims });
  const clock = { t: 1_000_000 };
  const make = (namespace: string) =>
    new VectorizeVectorIndex(vz, namespace, { dims, pendingWindowMs: WINDOW, now: () => clock.t, idScope: namespace });
  return { vz, clock, make };
}

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

describe("VectorizeVectorIndex", () => {
  it("writes each vector with its namespace and kind, in chunks of 500", async () => {
    const { vz, make } = setup(2);
    const spy = vi.spyOn(vz, "upsert");
    const idx = make("t1:a1");
    const items = Array.from({ length: 1001 }, (_, i) => ({ id: `m${i}`, vector: v(1, i), kind: "experience" }));
    await idx.upsert(items);
    expect(spy.mock.calls.map((c) => c[0].length)).toEqual([500, 500, 1]);
    expect(spy.mock.calls[0]![0][1]).toEqual({
      id: await idx.vectorId("m1"),
      values: [1, 1],
      namespace: "t1:a1",
      metadata: { kind: "experience", item: "m1" },
    });
    expect(idx.kind).toBe("vectorize");
  });

  it("(a) finds a just-upserted vector before the index has applied the write", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert([{ id: "new", vector: v(1, 0, 0), kind: "experience" }]);
    expect(vz.hasVisible(await idx.vectorId("new"))).toBe(false);
    const hits = await idx.query(v(1, 0, 0), { topK: 5, minSim: 0.3 });
    expect(hits).toEqual([{ id: "new", sim: expect.closeTo(1, 6) }]);
  });

  it("(b) does not return a removed vector that the index still holds, and still fills topK", async () => {
    const { vz, clock, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert([
      { id: "gone", vector: v(1, 0, 0), kind: "experience" },
      { id: "keep1", vector: v(1, 0.2, 0), kind: "experience" },
      { id: "keep2", vector: v(1, 0.4, 0), kind: "experience" },
    ]);
    vz.settle();
    // Past the window, so the kept vectors can only come from the index, not from the overlay.
    clock.t += WINDOW + 1;
    await idx.remove(["gone"]);
    expect(vz.hasVisible(await idx.vectorId("gone"))).toBe(true);
    const hits = await idx.query(v(1, 0, 0), { topK: 2, minSim: 0 });
    expect(ids(hits)).toEqual(["keep1", "keep2"]);
    // One extra row was requested to make up for the tombstone.
    expect(vz.queries.at(-1)!.options).toEqual({ topK: 3, namespace: "t1:a1", filter: undefined, returnMetadata: "indexed" });
  });

  it("(c) after the index settles and the window passes, answers from the index alone, still correctly", async () => {
    const { vz, clock, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert([
      { id: "a", vector: v(1, 0, 0), kind: "experience" },
      { id: "b", vector: v(0, 1, 0), kind: "experience" },
    ]);
    await idx.remove(["b"]);
    vz.settle();
    clock.t += WINDOW + 1;
    const hits = await idx.query(v(1, 0.1, 0), { topK: 5, minSim: -1 });
    expect(ids(hits)).toEqual(["a"]);
    expect(hits[0]!.sim).toBeCloseTo(1 / Math.sqrt(1.01), 5);
    expect(idx.pendingSize).toBe(0);
    expect(idx.tombstoneSize).toBe(0);
  });

  it("stops overlaying its writes once the window has passed", async () => {
    const { make, clock } = setup();
    const idx = make("t1:a1");
    await idx.upsert([{ id: "a", vector: v(1, 0, 0), kind: "k" }]);
    clock.t += WINDOW - 1;
    expect(ids(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0 }))).toEqual(["a"]);
    clock.t += 2;
    // The double never settled, so this shows the overlay is what made "a" visible before.
    expect(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0 })).toEqual([]);
  });

  it("(d) keeps two agents' namespaces apart, before and after the index settles", async () => {
    const { vz, make } = setup();
    const a = make("t1:agent-a");
    const b = make("t1:agent-b");
    await a.upsert([{ id: "a-mem", vector: v(1, 0, 0), kind: "experience" }]);
    await b.upsert([{ id: "b-mem", vector: v(1, 0, 0), kind: "experience" }]);
    expect(ids(await a.query(v(1, 0, 0), { topK: 5, minSim: 0 }))).toEqual(["a-mem"]);
    expect(ids(await b.query(v(1, 0, 0), { topK: 5, minSim: 0 }))).toEqual(["b-mem"]);
    vz.settle();
    const fresh = make("t1:agent-a");
    await fresh.track(["a-mem"]);
    expect(ids(await fresh.query(v(1, 0, 0), { topK: 5, minSim: 0 }))).toEqual(["a-mem"]);
  });

  it("(e) filters by kind in both the index and the pending overlay", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert([
      { id: "e1", vector: v(1, 0, 0), kind: "experience" },
      { id: "c1", vector: v(1, 0.1, 0), kind: "case" },
    ]);
    vz.settle();
    await idx.upsert([
      { id: "e2", vector: v(1, 0.2, 0), kind: "experience" },
      { id: "c2", vector: v(1, 0.3, 0), kind: "case" },
    ]);
    expect(ids(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0, kind: "experience" }))).toEqual(["e1", "e2"]);
    expect(ids(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0, kind: "case" }))).toEqual(["c1", "c2"]);
    expect(vz.queries.at(-1)!.options?.filter).toEqual({ kind: "case" });
    expect(ids(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0 }))).toEqual(["e1", "c1", "e2", "c2"]);
  });

  it("scores a rewritten vector from its new value and kind while the index still has the old ones", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert([{ id: "m", vector: v(1, 0, 0), kind: "experience" }]);
    vz.settle();
    await idx.upsert([{ id: "m", vector: v(0, 1, 0), kind: "case" }]);
    expect(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0.5, kind: "experience" })).toEqual([]);
    expect(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0.5 })).toEqual([]);
    expect(await idx.query(v(0, 1, 0), { topK: 5, minSim: 0.5, kind: "case" })).toEqual([{ id: "m", sim: expect.closeTo(1, 6) }]);
  });

  it("returns a re-upserted id again after it was removed", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert([{ id: "m", vector: v(1, 0, 0), kind: "k" }]);
    vz.settle();
    await idx.remove(["m"]);
    await idx.upsert([{ id: "m", vector: v(1, 0, 0), kind: "k" }]);
    expect(ids(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0 }))).toEqual(["m"]);
    vz.settle();
    expect(vz.hasVisible(await idx.vectorId("m"))).toBe(true);
  });

  it("applies minSim and topK across both sources, best first", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert([
      { id: "s1", vector: v(1, 0.1, 0), kind: "k" },
      { id: "s2", vector: v(0, 1, 0), kind: "k" },
    ]);
    vz.settle();
    await idx.upsert([
      { id: "p1", vector: v(1, 0, 0), kind: "k" },
      { id: "p2", vector: v(1, 0.5, 0), kind: "k" },
    ]);
    expect(ids(await idx.query(v(1, 0, 0), { topK: 2, minSim: 0 }))).toEqual(["p1", "s1"]);
    expect(ids(await idx.query(v(1, 0, 0), { topK: 10, minSim: 0.5 }))).toEqual(["p1", "s1", "p2"]);
  });

  it("rebuilds the overlay after a restart from seedPending", async () => {
    const { vz, clock, make } = setup();
    const before = make("t1:a1");
    await before.upsert([{ id: "old", vector: v(0, 0, 1), kind: "k" }]);
    vz.settle();
    await before.upsert([{ id: "recent", vector: v(1, 0, 0), kind: "k" }]);
    const writtenAt = clock.t;
    clock.t += 1_000;

    const after = make("t1:a1");
    await after.track(["old"]);
    // Without the seed, the restarted adapter has lost read-your-writes.
    expect(ids(await after.query(v(1, 0, 1), { topK: 5, minSim: 0 }))).toEqual(["old"]);
    after.seedPending([
      { id: "recent", vector: v(1, 0, 0), kind: "k", writtenAt },
      { id: "stale", vector: v(1, 0, 0), kind: "k", writtenAt: writtenAt - WINDOW - 1 },
    ]);
    expect(ids(await after.query(v(1, 0, 1), { topK: 5, minSim: 0 })).sort()).toEqual(["old", "recent"]);
    expect(after.pendingSize).toBe(1);
  });

  it("does not record a write the index rejected", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    vi.spyOn(vz, "upsert").mockRejectedValueOnce(new Error("VECTOR_UPSERT_ERROR"));
    await expect(idx.upsert([{ id: "m", vector: v(1, 0, 0), kind: "k" }])).rejects.toThrow(
      /Vectorize upsert failed in namespace "t1:a1": VECTOR_UPSERT_ERROR/,
    );
    expect(await idx.query(v(1, 0, 0), { topK: 5, minSim: 0 })).toEqual([]);
  });

  it("stores any item id under a short hashed id, and refuses namespaces over 64 bytes", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    const long = "é".repeat(40);
    await idx.upsert([{ id: long, vector: v(1, 0, 0), kind: "k" }]);
    vz.settle();
    const stored = await idx.vectorId(long);
    expect(new TextEncoder().encode(stored).length).toBeLessThanOrEqual(64);
    expect(vz.hasVisible(stored)).toBe(true);
    expect(() => make("n".repeat(65))).toThrow(/namespace/);
  });

  it("keeps the same item id of two owners apart, so one's delete leaves the other's vector", async () => {
    const { vz, clock, make } = setup();
    const a = make("t1:agent-a");
    const b = make("t1:agent-b");
    await a.upsert([{ id: "shared-id", vector: v(1, 0, 0), kind: "k" }]);
    await b.upsert([{ id: "shared-id", vector: v(1, 0, 0), kind: "k" }]);
    vz.settle();
    await a.remove(["shared-id"]);
    vz.settle();
    clock.t += WINDOW + 1;
    expect(vz.hasVisible(await b.vectorId("shared-id"))).toBe(true);
    expect(ids(await b.query(v(1, 0, 0), { topK: 5, minSim: 0 }))).toEqual(["shared-id"]);
    expect(await a.query(v(1, 0, 0), { topK: 5, minSim: 0 })).toEqual([]);
  });

  it("ignores matches in its namespace that it cannot map to an item", async () => {
    const { vz, clock, make } = setup();
    await vz.upsert([{ id: "foreign", values: [1, 0, 0], namespace: "t1:a1", metadata: { kind: "k" } }]);
    vz.settle();
    clock.t += WINDOW + 1;
    expect(await make("t1:a1").query(v(1, 0, 0), { topK: 5, minSim: 0 })).toEqual([]);
  });

  it("rejects vectors of the wrong dimension", async () => {
    const { make } = setup();
    const idx = make("t1:a1");
    await expect(idx.upsert([{ id: "m", vector: v(1, 0), kind: "k" }])).rejects.toThrow(RangeError);
    await expect(idx.query(v(1, 0), { topK: 1, minSim: 0 })).rejects.toThrow(RangeError);
  });

  it("never asks the index for more than 100 rows", async () => {
    const { vz, make } = setup();
    const idx = make("t1:a1");
    await idx.upsert(Array.from({ length: 150 }, (_, i) => ({ id: `m${i}`, vector: v(1, i, 0), kind: "k" })));
    const hits = await idx.query(v(1, 0, 0), { topK: 120, minSim: -1 });
    expect(vz.queries.at(-1)!.options?.topK).toBe(100);
    expect(hits).toHaveLength(120);
  });
});
