import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hashEmbed } from "../../src/core/hash-embedder";
import { until } from "../doubles/slow-embeddings";
import { expectProblem } from "../helpers";
import { slowEmbedderAgent } from "./setup";

afterEach(() => {
  vi.restoreAllMocks();
});

interface StoredVector extends Record<string, SqlStorageValue> {
  item_id: string;
  model: string;
  vec: ArrayBuffer;
}

describe("library and case writes while a remote embedder is answering", () => {
  it("a slow PATCH builds on changes committed meanwhile and never resurrects a deleted experience", async () => {
    const { api, emb } = await slowEmbedderAgent();
    const kept = (await api("POST", "/experiences", { text: "Retry HTTP 429 with backoff", tags: ["http"] })).body.id;
    const doomed = (await api("POST", "/experiences", { text: "Cache currency rates for an hour" })).body.id;

    const release = emb.hold();
    const slowEdit = api("PATCH", `/experiences/${kept}`, { text: "Retry HTTP 429 with exponential backoff and jitter" });
    const slowDoomedEdit = api("PATCH", `/experiences/${doomed}`, { text: "Cache currency rates for ten minutes" });
    const slowCreate = api("POST", "/experiences", { text: "Validate tool output against its JSON schema" });
    await emb.arrived(5);
    const tagged = await api("PATCH", `/experiences/${kept}`, { tags: ["http", "retries"], pinned: true });
    expect(tagged.status).toBe(200);
    expect((await api("DELETE", `/experiences/${doomed}`)).status).toBe(200);
    release();

    const [edit, doomedEdit, create] = await Promise.all([slowEdit, slowDoomedEdit, slowCreate]);
    expect(edit.status).toBe(200);
    expectProblem(doomedEdit, 404, "not-found");
    expect(create.status).toBe(201);

    const now = await api("GET", `/experiences/${kept}`);
    expect(now.body).toMatchObject({ text: "Retry HTTP 429 with exponential backoff and jitter", tags: ["http", "retries"], pinned: true });
    expect(now.body.embedding).toEqual({ model: "openai:slow-embed", current: true });
    expectProblem(await api("GET", `/experiences/${doomed}`), 404);
    const ids = (await api("GET", "/experiences")).body.items.map((e: { id: string }) => e.id);
    expect(ids.sort()).toEqual([kept, create.body.id].sort());
    const versions = (await api("GET", "/library/versions")).body.items.map((v: { reason: string }) => v.reason);
    expect(versions).toHaveLength(6);
  });

  it("an embedder switch during slow creates files no vector under a model that did not compute it", async () => {
    const { api, emb, stub } = await slowEmbedderAgent();
    const release = emb.hold();
    const experience = api("POST", "/experiences", { text: "Check units before adding quantities" });
    const kase = api("POST", "/cases", { task: "Add 3 m and 20 cm", reward: 1 });
    await emb.arrived(2);
    expect((await api("PATCH", "/config", { embedder: { provider: "hash" } })).status).toBe(200);
    release();
    const [e, c] = await Promise.all([experience, kase]);
    expect(e.status).toBe(201);
    expect(c.status).toBe(201);

    const stored = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec<StoredVector>("SELECT item_id, model, vec FROM vectors ORDER BY item_id").toArray(),
    );
    expect(stored.map((v) => [v.item_id, v.model])).toEqual(
      [
        [c.body.id, "hash:praxis-hash-v1:384"],
        [e.body.id, "hash:praxis-hash-v1:384"],
      ].sort(),
    );
    const byId = new Map(stored.map((v) => [v.item_id, Array.from(new Float32Array(v.vec))]));
    expect(byId.get(e.body.id)).toEqual(Array.from(hashEmbed("Check units before adding quantities")));
    expect(byId.get(c.body.id)).toEqual(Array.from(hashEmbed("Add 3 m and 20 cm")));
    expect((await api("GET", `/experiences/${e.body.id}`)).body.embedding).toEqual({ model: "hash:praxis-hash-v1:384", current: true });
    const found = await api("POST", "/retrieve", { query: "check units before adding", threshold: 0.2 });
    expect(found.status).toBe(200);
    expect(found.body.items.map((i: { id: string; match: string }) => [i.id, i.match])).toContainEqual([e.body.id, "vector"]);
  });

  it("stores an Idempotency-Key record in the transaction of the change it guards", async () => {
    const { api, stub } = await slowEmbedderAgent();
    let reachedPublish = false;
    let publishOpen = false;
    // Holds the write between its commit and the index update, where a crash would end it.
    await runInDurableObject(stub, (instance) => {
      const vectors = (instance as unknown as { mem: { vectors: { publish: (...a: unknown[]) => Promise<void> } } }).mem.vectors;
      const publish = vectors.publish.bind(vectors);
      vectors.publish = async (...args: unknown[]) => {
        reachedPublish = true;
        await until(() => publishOpen);
        return publish(...args);
      };
    });
    const create = api("POST", "/experiences", { text: "Confirm the account before refunding" }, { "idempotency-key": "refund-1" });
    await until(() => reachedPublish);
    const committed = await runInDurableObject(stub, (_i, state) => ({
      experiences: state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM experiences").one().n,
      keys: state.storage.sql
        .exec<{ key: string }>("SELECT key FROM idempotency")
        .toArray()
        .map((r) => r.key),
    }));
    publishOpen = true;
    expect((await create).status).toBe(201);
    expect(committed).toEqual({ experiences: 1, keys: ["experience.create:refund-1"] });
    const again = await api("POST", "/experiences", { text: "Confirm the account before refunding" }, { "idempotency-key": "refund-1" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe((await create).body.id);
  });
});
