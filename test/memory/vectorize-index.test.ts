import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { SqlVectorItems } from "../../durable-objects/agent-memory/vectors/items";
import { VectorStore } from "../../durable-objects/agent-memory/vectors/store";
import { HashEmbedder } from "../../src/adapters/embedders/hash";
import { LocalVectorIndex } from "../../src/adapters/vector-indexes/local";
import { DEFAULT_PENDING_WINDOW_MS, VectorizeVectorIndex } from "../../src/adapters/vector-indexes/vectorize";
import { InMemoryVectorize } from "../doubles/vectorize";
import { agentFixture } from "./setup";

/** An agent's object on its own, told its agent exists (as creating the agent through the API does). */
async function createdAgentMemory() {
  const stub = env.AGENT_MEMORY.getByName(`t_vec:agent-${crypto.randomUUID()}`) as DurableObjectStub<AgentMemory>;
  await stub.registerAgent();
  return stub;
}

const memoryOf = (tenantId: string, agentId: string) =>
  env.AGENT_MEMORY.getByName(`${tenantId}:${agentId}`) as DurableObjectStub<AgentMemory>;

/** Points a running agent's vectors at a Vectorize double through the DO's own wiring (namespace and id scope). */
async function onVectorize(stub: DurableObjectStub<AgentMemory>, double: InMemoryVectorize): Promise<VectorizeVectorIndex> {
  return runInDurableObject(stub, async (obj) => {
    const instance = obj as any;
    instance.env = { ...instance.env, VECTOR_INDEX: "vectorize", VECTORIZE: double };
    instance.mem.vectors = await instance.buildVectorStore();
    await instance.mem.vectors.load();
    return instance.mem.vectors.index;
  });
}

/** A store on the double whose clock the test moves, built as the DO builds it (restarts included). */
function clockedStore(sql: SqlStorage, double: InMemoryVectorize, clock: { t: number }) {
  const now = () => clock.t;
  return new VectorStore(sql, new HashEmbedder(), {
    makeIndex: (dims) => new VectorizeVectorIndex(double as unknown as VectorizeIndex, "ns_test", { dims, now, idScope: "t_vec:agent" }),
    items: new SqlVectorItems(sql),
    now,
  });
}

/**
 * The production index is eventually consistent; the DO must read its own writes anyway. The
 * DO runs for real here with its vector index pointed at an in-memory double of the binding.
 */
describe("AgentMemory on a Vectorize index", () => {
  it("finds a just-written memory and hides a just-deleted one before the index settles", async () => {
    const stub = await createdAgentMemory();
    const double = new InMemoryVectorize({ dimensions: 384 });
    const index = await onVectorize(stub, double);
    await runInDurableObject(stub, async (obj) => {
      const instance = obj as unknown as AgentMemory;
      const created = await instance.createExperience({ experience: { text: "Retry HTTP 429 with exponential backoff" }, author: "test" });
      if (!created.ok) throw new Error(created.error.detail);
      const id = created.value.value.experience.id;
      expect(double.pendingMutations).toBeGreaterThan(0);
      expect(double.hasVisible(await index.vectorId(id))).toBe(false);

      const hit = await instance.retrieve({ request: { query: "retry HTTP 429 backoff" } });
      if (!hit.ok) throw new Error(hit.error.detail);
      expect(hit.value.items.map((i: { id: string }) => i.id)).toEqual([id]);

      double.settle();
      expect(double.hasVisible(await index.vectorId(id))).toBe(true);
      await instance.deleteExperience({ id, author: "test" });
      expect(double.hasVisible(await index.vectorId(id))).toBe(true);
      const gone = await instance.retrieve({ request: { query: "retry HTTP 429 backoff" } });
      if (!gone.ok) throw new Error(gone.error.detail);
      expect(gone.value.items).toEqual([]);

      double.settle();
      const still = await instance.retrieve({ request: { query: "retry HTTP 429 backoff" } });
      expect(still.ok && still.value.items).toEqual([]);
    });
  });

  it("a failed index write after commit does not fail the request; the index is rebuilt before the next search", async () => {
    const stub = await createdAgentMemory();
    await runInDurableObject(stub, async (obj) => {
      const instance = obj as unknown as AgentMemory;
      const index = (instance as any).mem.vectors.index;
      const upsert = index.upsert.bind(index);
      let failures = 1;
      index.upsert = async (items: unknown[]) => {
        if (failures-- > 0) throw new Error("index unavailable");
        return upsert(items);
      };
      const created = await instance.createExperience({
        experience: { text: "Check the schema before parsing tool output" },
        author: "test",
      });
      expect(created.ok).toBe(true);
      const hit = await instance.retrieve({ request: { query: "check schema before parsing tool output" } });
      expect(hit.ok && hit.value.items.map((i: { text: string }) => i.text)).toEqual(["Check the schema before parsing tool output"]);
    });
  });

  it("keeps two agents' copies of one imported library apart: a delete in one leaves the other's vectors", async () => {
    const source = await agentFixture();
    const target = await agentFixture();
    const double = new InMemoryVectorize({ dimensions: 384 });
    const sourceIndex = await onVectorize(memoryOf(source.t.tenantId, source.agentId), double);
    const targetIndex = await onVectorize(memoryOf(target.t.tenantId, target.agentId), double);

    const texts = ["Retry HTTP 429 with exponential backoff", "Validate tool output JSON against its schema"];
    const ids: string[] = [];
    for (const text of texts) ids.push((await source.api("POST", "/experiences", { text })).body.id);
    double.settle();
    const exported = await source.api("GET", "/library/export");
    expect((await target.api("POST", "/library/import", { mode: "replace", library: exported.body })).status).toBe(200);
    double.settle();
    expect((await target.api("GET", `/experiences/${ids[0]}`)).status).toBe(200);

    expect((await target.api("DELETE", `/experiences/${ids[0]}`)).status).toBe(200);
    double.settle();

    // The source's vectors stay in its own namespace, whatever the target did with the same ids.
    for (const id of ids) expect(double.hasVisible(await sourceIndex.vectorId(id))).toBe(true);
    expect(double.hasVisible(await targetIndex.vectorId(ids[0]!))).toBe(false);
    const query = Array.from((await new HashEmbedder().embed([texts[0]!]))[0]!);
    const inSource = await double.query(query, { topK: 10, namespace: sourceIndex.namespace });
    expect(inSource.matches).toHaveLength(2);
    const inTarget = await double.query(query, { topK: 10, namespace: targetIndex.namespace });
    expect(inTarget.matches.map((m) => m.id)).toEqual([await targetIndex.vectorId(ids[1]!)]);
  });

  it("re-publishes a write the index refused, durably, so it is found after the overlay window", async () => {
    const stub = await createdAgentMemory();
    const double = new InMemoryVectorize({ dimensions: 384 });
    const clock = { t: Date.now() };
    await runInDurableObject(stub, async (obj, state) => {
      const instance = obj as unknown as AgentMemory;
      const mem = (instance as any).mem;
      mem.vectors = clockedStore(state.storage.sql, double, clock);
      await mem.vectors.load();

      double.failNext("upsert");
      const created = await instance.createExperience({
        experience: { text: "Check the schema before parsing tool output" },
        author: "test",
      });
      if (!created.ok) throw new Error(created.error.detail);
      const id = created.value.value.experience.id;
      expect(double.pendingMutations).toBe(0);

      // A restart past the overlay window: only the durable mark can bring the item back.
      clock.t += DEFAULT_PENDING_WINDOW_MS + 1;
      mem.vectors = clockedStore(state.storage.sql, double, clock);
      await mem.vectors.load();
      double.settle();
      clock.t += DEFAULT_PENDING_WINDOW_MS + 1;

      const vectorId = await mem.vectors.index.vectorId(id);
      expect(double.hasVisible(vectorId)).toBe(true);
      const hit = await instance.retrieve({ request: { query: "check schema before parsing tool output" } });
      if (!hit.ok) throw new Error(hit.error.detail);
      expect(hit.value.items.map((i: { id: string }) => i.id)).toEqual([id]);
      expect(state.storage.sql.exec("SELECT * FROM vector_outbox").toArray()).toEqual([]);
    });
  });

  it("keeps a refused write searchable while the index keeps refusing, and publishes it on the next write", async () => {
    const stub = await createdAgentMemory();
    const double = new InMemoryVectorize({ dimensions: 384 });
    const clock = { t: Date.now() };
    await runInDurableObject(stub, async (obj, state) => {
      const instance = obj as unknown as AgentMemory;
      const mem = (instance as any).mem;
      mem.vectors = clockedStore(state.storage.sql, double, clock);
      await mem.vectors.load();

      double.failNext("upsert", 2);
      const created = await instance.createExperience({
        experience: { text: "Check the schema before parsing tool output" },
        author: "test",
      });
      if (!created.ok) throw new Error(created.error.detail);
      const id = created.value.value.experience.id;
      clock.t += DEFAULT_PENDING_WINDOW_MS + 1;
      const during = await instance.retrieve({ request: { query: "check schema before parsing tool output" } });
      expect(during.ok && during.value.items.map((i: { id: string }) => i.id)).toEqual([id]);

      await instance.createExperience({ experience: { text: "Cache database queries that repeat" }, author: "test" });
      double.settle();
      expect(double.hasVisible(await mem.vectors.index.vectorId(id))).toBe(true);
      expect(state.storage.sql.exec("SELECT * FROM vector_outbox").toArray()).toEqual([]);
    });
  });

  it("the cron sweep publishes what the index refused, for agents nobody calls", async () => {
    const stub = await createdAgentMemory();
    const double = new InMemoryVectorize({ dimensions: 384 });
    const clock = { t: Date.now() };
    await runInDurableObject(stub, async (obj, state) => {
      const instance = obj as unknown as AgentMemory;
      const mem = (instance as any).mem;
      mem.vectors = clockedStore(state.storage.sql, double, clock);
      await mem.vectors.load();
      double.failNext("upsert");
      const created = await instance.createExperience({
        experience: { text: "Check the schema before parsing tool output" },
        author: "test",
      });
      if (!created.ok) throw new Error(created.error.detail);
      expect((await instance.sweep({ at: clock.t })).ok).toBe(true);
      double.settle();
      expect(double.hasVisible(await mem.vectors.index.vectorId(created.value.value.experience.id))).toBe(true);
    });
  });

  it("an auto agent moves to Vectorize once it holds more than LOCAL_INDEX_LIMIT memories, uploading those it had", async () => {
    const stub = await createdAgentMemory();
    const double = new InMemoryVectorize({ dimensions: 384 });
    await runInDurableObject(stub, async (obj, state) => {
      const instance = obj as any;
      const restart = async () => {
        instance.env = { ...instance.env, VECTOR_INDEX: "auto", LOCAL_INDEX_LIMIT: "3", VECTORIZE: double };
        instance.mem.vectors = await instance.buildVectorStore();
        await instance.mem.vectors.load();
        return instance.mem.vectors.index;
      };
      const texts = [
        "Retry HTTP 429 with exponential backoff",
        "Validate tool output JSON against its schema",
        "Cache database queries that repeat",
        "Escalate when a customer mentions legal action",
      ];
      const ids: string[] = [];
      for (const text of texts.slice(0, 3))
        ids.push((await instance.createExperience({ experience: { text }, author: "test" })).value.value.experience.id);
      expect(await restart()).toBeInstanceOf(LocalVectorIndex);
      ids.push((await instance.createExperience({ experience: { text: texts[3] }, author: "test" })).value.value.experience.id);
      expect(double.pendingMutations).toBe(0);

      // Written long ago, so nothing is recent enough for the overlay that covers fresh writes.
      state.storage.sql.exec("UPDATE vectors SET updated_at = updated_at - ?", 2 * DEFAULT_PENDING_WINDOW_MS);
      // The move runs in steps from the object's alarm (test/memory/vectorize-backfill.test.ts); searches stay local meanwhile.
      expect(await restart()).toBeInstanceOf(LocalVectorIndex);
      expect(await state.storage.getAlarm()).not.toBeNull();
      for (let step = 0; instance.mem.vectors.backfillDueAt() !== null && step < 5; step++) {
        await instance.mem.vectors.backfillStep();
        // Vectorize has had its time to apply the upload.
        state.storage.sql.exec("UPDATE meta SET value = 'settle:0' WHERE key LIKE 'vector_backfill:%' AND value LIKE 'settle:%'");
      }
      const index = instance.mem.vectors.index;
      expect(index).toBeInstanceOf(VectorizeVectorIndex);
      // Uploaded without a float copy in the overlay; the index answers once it applies them.
      expect(index.pendingSize).toBe(0);
      double.settle();
      for (const id of ids) expect(double.hasVisible(await index.vectorId(id))).toBe(true);
      const hit = await instance.retrieve({ request: { query: "escalate when a customer mentions legal action" } });
      expect(hit.value.items[0].id).toBe(ids[3]);
      expect(double.queries.length).toBeGreaterThan(0);
      expect(
        state.storage.sql
          .exec("SELECT key FROM meta WHERE key LIKE 'vector_%' ORDER BY key")
          .toArray()
          .map((r) => r.key),
      ).toEqual(["vector_dims:hash:praxis-hash-v1:384", "vector_index:hash:praxis-hash-v1:384"]);

      // Shrinking below the limit does not move it back (nor upload everything again).
      await instance.deleteExperience({ id: ids[0], author: "test" });
      await instance.deleteExperience({ id: ids[1], author: "test" });
      double.settle();
      const pending = double.pendingMutations;
      expect(await restart()).toBeInstanceOf(VectorizeVectorIndex);
      expect(double.pendingMutations).toBe(pending);
    });
  });

  it("finds tag- or metadata-filtered items however many nearer unmatched items there are", async () => {
    const stub = await createdAgentMemory();
    const double = new InMemoryVectorize({ dimensions: 384 });
    await onVectorize(stub, double);
    await runInDurableObject(stub, async (obj) => {
      const instance = obj as unknown as AgentMemory;
      const ops = Array.from({ length: 120 }, (_, i) => ({
        op: "create" as const,
        experience: { text: `Retry HTTP 429 with exponential backoff, variant ${i}` },
      }));
      ops.push({ op: "create", experience: { text: "Retry a payment webhook later", tags: ["billing"] } as never });
      ops.push({ op: "create", experience: { text: "Retry the export job at night", metadata: { customer: "acme" } } as never });
      const applied = await instance.applyLibrary({ operations: ops, reason: "seed", author: "test" });
      if (!applied.ok) throw new Error(applied.error.detail);
      double.settle();
      const hit = await instance.retrieve({
        request: { query: "retry HTTP 429 with exponential backoff", tags: ["billing"], threshold: 0 },
      });
      if (!hit.ok) throw new Error(hit.error.detail);
      expect(hit.value.items.map((i: { text: string }) => i.text)).toEqual(["Retry a payment webhook later"]);
      const byMeta = await instance.retrieve({
        request: { query: "retry HTTP 429 with exponential backoff", filter: { metadata: { customer: "acme" } }, threshold: 0 },
      });
      if (!byMeta.ok) throw new Error(byMeta.error.detail);
      expect(byMeta.value.items.map((i: { text: string }) => i.text)).toEqual(["Retry the export job at night"]);
    });
  });
});
