import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { DomainError } from "../../src/core/errors";
import { packPendingCodes, VectorPages } from "../../durable-objects/agent-memory/vectors/pages";
import { valueOf } from "../helpers";
import { agentFixture } from "./setup";

const memoryOf = (tenantId: string, agentId: string) =>
  env.AGENT_MEMORY.getByName(`${tenantId}:${agentId}`) as DurableObjectStub<AgentMemory>;

describe("the agent's vector store", () => {
  it("finds tag-filtered items however many nearer untagged items there are", async () => {
    const { api } = await agentFixture();
    const operations = Array.from({ length: 150 }, (_, i) => ({
      op: "create",
      experience: { text: `Retry HTTP 429 with exponential backoff, variant ${i}` },
    }));
    operations.push({ op: "create", experience: { text: "Retry a payment webhook later", tags: ["billing"] } as never });
    expect((await api("POST", "/library/batch", { operations, reason: "seed" })).status).toBe(200);

    const hit = await api("POST", "/retrieve", { query: "retry HTTP 429 with exponential backoff", tags: ["billing"], threshold: 0 });
    expect(hit.status).toBe(200);
    expect(hit.body.items.map((i: any) => [i.text, i.match])).toEqual([["Retry a payment webhook later", "vector"]]);
    const untagged = await api("POST", "/retrieve", {
      query: "retry HTTP 429 with exponential backoff",
      tags: ["nobody-has-this"],
      threshold: 0,
    });
    expect(untagged.body.items).toEqual([]);
  });

  it("refuses a vector of another dimension at write time and stores nothing", async () => {
    const { t, agentId, api } = await agentFixture();
    const id = (await api("POST", "/experiences", { text: "Validate tool output JSON" })).body.id;
    await runInDurableObject(memoryOf(t.tenantId, agentId), async (obj, state) => {
      const vectors = (obj as any).mem.vectors;
      const before = state.storage.sql.exec("SELECT vec FROM vectors WHERE item_id = ?", id).toArray();
      let thrown: unknown;
      try {
        state.storage.transactionSync(() => vectors.writeSync(id, "experience", new Float32Array(256).fill(0.1)));
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(DomainError);
      expect((thrown as DomainError).info.kind).toBe("conflict");
      expect((thrown as DomainError).message).toMatch(/256-dimensional vector .* hash:praxis-hash-v1:384 \(384 dimensions\)/);
      expect(state.storage.sql.exec("SELECT vec FROM vectors WHERE item_id = ?", id).toArray()).toEqual(before);
    });
  });

  it("skips a stored vector of the wrong size on reload, matches it lexically, and re-embeds it", async () => {
    const { t, agentId, api } = await agentFixture();
    const bad = (await api("POST", "/experiences", { text: "Retry HTTP 429 with exponential backoff" })).body.id;
    const good = (await api("POST", "/experiences", { text: "Validate tool output JSON against its schema" })).body.id;
    const stub = memoryOf(t.tenantId, agentId);
    await runInDurableObject(stub, async (obj, state) => {
      const instance = obj as any;
      const wrong = new Float32Array(256).fill(0.1);
      state.storage.sql.exec("UPDATE vectors SET vec = ? WHERE item_id = ?", wrong.buffer, bad);
      // Paged again from the stored vectors, as after the schema step that introduced pages: the wrong size gets no code.
      new VectorPages(state.storage.sql).remove(bad);
      state.storage.sql.exec("INSERT INTO meta (key, value) VALUES ('vector_pages_pending', '1')");
      packPendingCodes(state.storage);
      instance.mem.vectors = await instance.buildVectorStore();
      await instance.mem.vectors.load();
      expect(instance.mem.vectors.missingIds("experience")).toEqual([bad]);
    });
    const lexical = await api("POST", "/retrieve", { query: "retry HTTP 429 backoff", threshold: 0.2 });
    expect(lexical.body.items.map((i: any) => [i.id, i.match])).toEqual([[bad, "lexical"]]);
    expect((await api("POST", "/retrieve", { query: "validate tool output JSON schema" })).body.items.map((i: any) => i.id)).toEqual([
      good,
    ]);

    expect((await valueOf(stub.reembed({ model: "hash:praxis-hash-v1:384" }))).remaining).toBe(0);
    const vector = await api("POST", "/retrieve", { query: "retry HTTP 429 backoff", threshold: 0.2 });
    expect(vector.body.items.map((i: any) => [i.id, i.match])).toEqual([[bad, "vector"]]);
  });
});
