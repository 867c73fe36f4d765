import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { BACKFILL_CHUNK } from "../../durable-objects/agent-memory/vectors/backfill";
import { LocalVectorIndex } from "../../src/adapters/vector-indexes/local";
import { VectorizeVectorIndex } from "../../src/adapters/vector-indexes/vectorize";
import { InMemoryVectorize } from "../doubles/vectorize";
import { until } from "../doubles/slow-embeddings";

const topic = (n: number) => `Lesson ${n}: when invoice batch ${n} fails validation, re-run checksum ${n * 7919} before retrying`;

/**
 * An agent past the local index's limit moves to Vectorize: in bounded chunks from its object's
 * alarm, serving from its local index until every vector is sent and Vectorize has had time to apply
 * them. `init()` is the object's own start-up, run again as a restart would.
 */
describe("moving an agent's vectors to Vectorize", () => {
  it("backfills in chunks across alarms, serves meanwhile, and resumes after a restart without re-sending or losing a vector", async () => {
    const memory = env.AGENT_MEMORY.getByName(`t_fill:agent-${crypto.randomUUID()}`) as DurableObjectStub<AgentMemory>;
    await memory.registerAgent();
    const stub = memory;
    const total = BACKFILL_CHUNK + 100;
    const ops = Array.from({ length: total }, (_, n) => ({ op: "create" as const, experience: { text: topic(n) } }));
    const seeded = (await memory.applyLibrary({ operations: ops, reason: "seed", author: "test" })) as {
      ok: boolean;
      value: { value: { experiences: { id: string }[] } };
    };
    if (!seeded.ok) throw new Error(JSON.stringify(seeded));
    const ids = seeded.value.value.experiences.map((e) => e.id);

    // Backfill chunks (large batches) wait for a permit, so the test decides when each goes; the
    // object's alarm fires on its own. Single writes pass at once.
    const double = new InMemoryVectorize({ dimensions: 384 });
    const uploads = new Map<string, number>();
    const gate = { permits: 0, waiting: 0 };
    const upsert = double.upsert.bind(double);
    double.upsert = async (vectors) => {
      if (vectors.length > 10) {
        gate.waiting++;
        await until(() => gate.permits > 0);
        gate.permits--;
        gate.waiting--;
      }
      for (const v of vectors) uploads.set(v.id, (uploads.get(v.id) ?? 0) + 1);
      return upsert(vectors);
    };
    const restart = (instance: any) => {
      instance.env = { ...instance.env, VECTOR_INDEX: "auto", LOCAL_INDEX_LIMIT: "100", VECTORIZE: double };
      return instance.init();
    };
    const retrieveTop = async (instance: any, n: number) => {
      const r = await instance.retrieve({ request: { query: topic(n), k: 1 } });
      if (!r.ok) throw new Error(JSON.stringify(r.error));
      return r.value.items[0]?.id;
    };

    await runInDurableObject(stub, async (obj, state) => {
      const instance = obj as any;
      await restart(instance);
      expect(instance.mem.vectors.index).toBeInstanceOf(LocalVectorIndex);
      const alarm = await state.storage.getAlarm();
      expect(alarm).not.toBeNull();
      expect(alarm!).toBeLessThanOrEqual(Date.now());
    });

    gate.permits = 1;
    // The first chunk is sent and the next one, from the next alarm, waits.
    await until(() => uploads.size === BACKFILL_CHUNK && gate.waiting === 1);
    const firstChunk = new Set(uploads.keys());

    const added = await runInDurableObject(stub, async (obj, state) => {
      const instance = obj as any;
      // Mid-move: searches are answered locally, Vectorize is not asked.
      expect(instance.mem.vectors.index).toBeInstanceOf(LocalVectorIndex);
      expect(await retrieveTop(instance, total - 1)).toBe(ids[total - 1]);
      expect(double.queries).toHaveLength(0);
      // Writes go on: one item behind the cursor is deleted, one is added past it.
      expect((await instance.deleteExperience({ id: ids[3], author: "test" })).ok).toBe(true);
      const created = await instance.createExperience({
        experience: { text: "Escalate when a customer mentions legal action" },
        author: "test",
      });
      expect(await retrieveTop(instance, 3)).not.toBe(ids[3]);

      // The object restarts mid-move: it resumes from the stored cursor, still serving locally.
      await restart(instance);
      expect(instance.mem.vectors.index).toBeInstanceOf(LocalVectorIndex);
      expect(await state.storage.getAlarm()).not.toBeNull();
      return created.value.value.experience.id as string;
    });

    gate.permits = 100;
    await until(() => gate.waiting === 0);
    for (let step = 0; step < 6; step++) {
      const moved = await runInDurableObject(stub, (obj, state) => {
        const instance = obj as any;
        // Vectorize has had its time to apply the upload (the wait is the adapter's pending window).
        state.storage.sql.exec("UPDATE meta SET value = 'settle:0' WHERE key LIKE 'vector_backfill:%' AND value LIKE 'settle:%'");
        return instance.mem.vectors.backfillDueAt() === null;
      });
      if (moved) break;
      await runDurableObjectAlarm(stub);
      await until(() => gate.waiting === 0);
    }

    await runInDurableObject(stub, async (obj) => {
      const instance = obj as any;
      const index = instance.mem.vectors.index;
      expect(index).toBeInstanceOf(VectorizeVectorIndex);
      double.settle();
      const active = [...ids.filter((id) => id !== ids[3]), added];
      for (const id of active) expect(double.hasVisible(await index.vectorId(id)), id).toBe(true);
      expect(double.hasVisible(await index.vectorId(ids[3]!))).toBe(false);
      expect((double as unknown as { vectors: Map<string, unknown> }).vectors.size).toBe(active.length);
      // The first chunk was not sent again after the restart.
      for (const id of firstChunk) expect(uploads.get(id)).toBe(1);
      expect(await retrieveTop(instance, 42)).toBe(ids[42]);
      expect(double.queries.length).toBeGreaterThan(0);
    });
  });
});
