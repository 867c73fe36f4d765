import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { VectorStore } from "../../durable-objects/agent-memory/vector-store";
import { HashEmbedder } from "../../src/adapters/embedders/hash";
import { VectorizeVectorIndex } from "../../src/adapters/vector-indexes/vectorize";
import { InMemoryVectorize } from "../doubles/vectorize";

/**
 * The production index is eventually consistent; the DO must read its own writes anyway. The
 * DO runs for real here with its vector index pointed at an in-memory double of the binding.
 */
describe("AgentMemory on a Vectorize index", () => {
  it("finds a just-written memory and hides a just-deleted one before the index settles", async () => {
    const stub = env.AGENT_MEMORY.getByName(`t_vec:agent-${crypto.randomUUID()}`) as DurableObjectStub<AgentMemory>;
    await runInDurableObject(stub, async (obj) => {
      const instance = obj as unknown as AgentMemory;
      const double = new InMemoryVectorize({ dimensions: 384 });
      const mem = (instance as any).mem;
      const index = new VectorizeVectorIndex(double as unknown as VectorizeIndex, "ns_test", { dims: 384 });
      mem.vectors = new VectorStore(mem.sql, new HashEmbedder(), index, () => Date.now());
      await mem.vectors.load();

      const created = await instance.createExperience({ text: "Retry HTTP 429 with exponential backoff" }, "test");
      if (!created.ok) throw new Error(created.error.detail);
      const id = created.value.value.experience.id;
      expect(double.pendingMutations).toBeGreaterThan(0);
      expect(double.hasVisible(id)).toBe(false);

      const hit = await instance.retrieve({ query: "retry HTTP 429 backoff" });
      if (!hit.ok) throw new Error(hit.error.detail);
      expect(hit.value.items.map((i: { id: string }) => i.id)).toEqual([id]);

      double.settle();
      expect(double.hasVisible(id)).toBe(true);
      await instance.deleteExperience(id, "test");
      expect(double.hasVisible(id)).toBe(true);
      const gone = await instance.retrieve({ query: "retry HTTP 429 backoff" });
      if (!gone.ok) throw new Error(gone.error.detail);
      expect(gone.value.items).toEqual([]);

      double.settle();
      const still = await instance.retrieve({ query: "retry HTTP 429 backoff" });
      expect(still.ok && still.value.items).toEqual([]);
    });
  });

  it("a failed index write after commit does not fail the request; the index is rebuilt before the next search", async () => {
    const stub = env.AGENT_MEMORY.getByName(`t_vec:agent-${crypto.randomUUID()}`) as DurableObjectStub<AgentMemory>;
    await runInDurableObject(stub, async (obj) => {
      const instance = obj as unknown as AgentMemory;
      const index = (instance as any).mem.vectors.index;
      const upsert = index.upsert.bind(index);
      let failures = 1;
      index.upsert = async (items: unknown[]) => {
        if (failures-- > 0) throw new Error("index unavailable");
        return upsert(items);
      };
      const created = await instance.createExperience({ text: "Check the schema before parsing tool output" }, "test");
      expect(created.ok).toBe(true);
      const hit = await instance.retrieve({ query: "check schema before parsing tool output" });
      expect(hit.ok && hit.value.items.map((i: { text: string }) => i.text)).toEqual(["Check the schema before parsing tool output"]);
    });
  });
});
