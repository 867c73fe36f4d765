/** The double stands in for production behaviour, so its own semantics are pinned down here. */
import { describe, expect, it } from "vitest";
import { InMemoryVectorize } from "../doubles/vectorize";

describe("InMemoryVectorize", () => {
  it("returns a mutationId and hides writes until settled", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2 });
    const res = await vz.upsert([{ id: "a", values: [1, 0], namespace: "n" }]);
    expect(res.mutationId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await vz.query([1, 0], { namespace: "n" })).matches).toEqual([]);
    expect(await vz.getByIds(["a"])).toEqual([]);
    expect(vz.settle()).toBe(1);
    const { matches } = await vz.query([1, 0], { namespace: "n" });
    expect(matches).toEqual([{ id: "a", namespace: "n", score: expect.closeTo(1, 6) }]);
    expect((await vz.describe()).processedUpToMutation).toBe(res.mutationId);
  });

  it("keeps deleted vectors visible until settled", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2 });
    await vz.upsert([{ id: "a", values: [1, 0] }]);
    vz.settle();
    await vz.deleteByIds(["a"]);
    expect((await vz.query([1, 0])).matches.map((m) => m.id)).toEqual(["a"]);
    vz.settle();
    expect((await vz.query([1, 0])).matches).toEqual([]);
  });

  it("applies mutations by itself after the configured number of queries, in order", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2, visibleAfterQueries: 2 });
    await vz.upsert([{ id: "a", values: [1, 0] }]);
    await vz.deleteByIds(["a"]);
    expect((await vz.query([1, 0])).count).toBe(0);
    expect((await vz.query([1, 0])).count).toBe(0);
    // Both are now ready; the delete must land after the upsert, leaving nothing.
    expect((await vz.query([1, 0])).count).toBe(0);
    expect(vz.pendingMutations).toBe(0);

    await vz.upsert([{ id: "b", values: [0, 1] }]);
    await vz.query([1, 0]);
    await vz.query([1, 0]);
    expect((await vz.query([0, 1])).matches.map((m) => m.id)).toEqual(["b"]);
  });

  it("treats ids as unique across namespaces and scopes queries to one namespace", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2 });
    await vz.upsert([
      { id: "a", values: [1, 0], namespace: "n1" },
      { id: "b", values: [1, 0], namespace: "n2" },
    ]);
    await vz.upsert([{ id: "a", values: [1, 0], namespace: "n2" }]);
    vz.settle();
    expect((await vz.query([1, 0], { namespace: "n1" })).matches).toEqual([]);
    expect((await vz.query([1, 0], { namespace: "n2" })).matches.map((m) => m.id)).toEqual(["a", "b"]);
    expect((await vz.query([1, 0])).count).toBe(2);
  });

  it("filters on indexed metadata with bare values, $eq, $ne, $in and $nin", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2, metadataIndexes: ["kind"] });
    await vz.upsert([
      { id: "e", values: [1, 0], metadata: { kind: "experience", note: "x" } },
      { id: "c", values: [1, 0.1], metadata: { kind: "case", note: "x" } },
      { id: "p", values: [1, 0.2], metadata: { kind: "practice", note: "y" } },
    ]);
    vz.settle();
    const ids = async (filter: VectorizeVectorMetadataFilter) => (await vz.query([1, 0], { filter })).matches.map((m) => m.id);
    expect(await ids({ kind: "case" })).toEqual(["c"]);
    expect(await ids({ kind: { $eq: "experience" } })).toEqual(["e"]);
    expect(await ids({ kind: { $ne: "experience" } })).toEqual(["c", "p"]);
    expect(await ids({ kind: { $in: ["practice", "experience"] } })).toEqual(["e", "p"]);
    expect(await ids({ kind: { $nin: ["practice", "experience"] } })).toEqual(["c"]);
    // `note` has no metadata index, so nothing can match on it.
    expect(await ids({ note: "x" })).toEqual([]);
  });

  it("returns metadata at the requested level", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2 });
    await vz.upsert([{ id: "a", values: [1, 0], metadata: { kind: "k", note: "n" } }]);
    vz.settle();
    const first = async (returnMetadata: VectorizeQueryOptions["returnMetadata"]) =>
      (await vz.query([1, 0], { returnMetadata })).matches[0]!;
    expect((await first("none")).metadata).toBeUndefined();
    expect((await first("indexed")).metadata).toEqual({ kind: "k" });
    expect((await first("all")).metadata).toEqual({ kind: "k", note: "n" });
    expect((await vz.query([1, 0], { returnValues: true })).matches[0]!.values).toEqual([1, 0]);
  });

  it("enforces topK limits, dimensions and id length like the service", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2, metadataIndexes: ["kind"] });
    await vz.upsert(Array.from({ length: 120 }, (_, i) => ({ id: `v${i}`, values: [1, i / 120], metadata: { kind: "k", note: "n" } })));
    vz.settle();
    const top = await vz.query([1, 0], { topK: 100 });
    expect(top.count).toBe(100);
    expect(top.matches[0]!.id).toBe("v0");
    expect(top.matches.every((m, i) => i === 0 || m.score <= top.matches[i - 1]!.score)).toBe(true);
    await expect(vz.query([1, 0], { topK: 101 })).rejects.toThrow(/topK/);
    await expect(vz.query([1, 0], { topK: 21, returnValues: true })).rejects.toThrow(/topK/);
    await expect(vz.query([1, 0], { topK: 21, returnMetadata: "all" })).rejects.toThrow(/topK/);
    const indexed = await vz.query([1, 0], { topK: 100, returnMetadata: "indexed" });
    expect(indexed.matches.map((m) => m.metadata)).toEqual(Array(100).fill({ kind: "k" }));
    await expect(vz.query([1, 0, 0])).rejects.toThrow(/dimensions/);
    await expect(vz.upsert([{ id: "a", values: [1] }])).rejects.toThrow(/dimensions/);
    await expect(vz.upsert([{ id: "x".repeat(65), values: [1, 0] }])).rejects.toThrow(/64 bytes/);
    await expect(vz.upsert([{ id: "a", values: [1, 0], metadata: { $bad: 1 } }])).rejects.toThrow(/metadata key/);
    expect(vz.pendingMutations).toBe(0);
  });

  it("insert keeps an existing vector, upsert replaces it", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2 });
    await vz.upsert([{ id: "a", values: [1, 0] }]);
    vz.settle();
    await vz.insert([{ id: "a", values: [0, 1] }]);
    vz.settle();
    expect((await vz.getByIds(["a"]))[0]!.values).toEqual([1, 0]);
    await vz.upsert([{ id: "a", values: [0, 1] }]);
    vz.settle();
    expect((await vz.getByIds(["a"]))[0]!.values).toEqual([0, 1]);
  });

  it("fails the next calls of one method on request, changing nothing", async () => {
    const vz = new InMemoryVectorize({ dimensions: 2 });
    vz.failNext("upsert");
    await expect(vz.upsert([{ id: "a", values: [1, 0] }])).rejects.toThrow(/VECTOR_UPSERT_ERROR/);
    expect(vz.settle()).toBe(0);
    await vz.upsert([{ id: "a", values: [1, 0] }]);
    vz.settle();
    expect(vz.hasVisible("a")).toBe(true);
  });
});
