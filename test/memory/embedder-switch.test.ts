import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { valueOf } from "../helpers";
import { agentFixture } from "./setup";

describe("embedder switch", () => {
  it("re-embeds in the background, matches lexically meanwhile, and never mixes vector spaces", async () => {
    const { t, agentId, api } = await agentFixture();
    const ids: string[] = [];
    for (const text of ["Retry HTTP 429 with exponential backoff", "Validate tool output JSON", "Cache database queries"]) {
      ids.push((await api("POST", "/experiences", { text })).body.id);
    }
    await api("POST", "/cases", { task: "Retry a throttled HTTP call", reward: 1 });
    const before = await api("GET", `/experiences/${ids[0]}`);
    expect(before.body.embedding).toEqual({ model: "hash:praxis-hash-v1:384", current: true });

    const patched = await api("PATCH", "/config", { embedder: { provider: "hash", dims: 256 } });
    expect(patched.status).toBe(200);
    const stale = await api("GET", `/experiences/${ids[0]}`);
    expect(stale.body.embedding).toEqual({ model: "hash:praxis-hash-v1:384", current: false });

    const stub = env.AGENT_MEMORY.getByName(`${t.tenantId}:${agentId}`) as DurableObjectStub<AgentMemory>;
    const lexical = await api("POST", "/retrieve", { query: "retry HTTP 429 backoff", threshold: 0.2 });
    // The test environment has no background queue consumer, so nothing is re-embedded yet.
    expect(lexical.body.items.length).toBeGreaterThan(0);
    for (const item of lexical.body.items) expect(item.match).toBe("lexical");
    expect(lexical.body.items[0].id).toBe(ids[0]);

    let remaining = 1;
    for (let i = 0; i < 5 && remaining > 0; i++) remaining = (await valueOf(stub.reembed({ model: "hash:praxis-hash-v1:256" }))).remaining;
    expect(remaining).toBe(0);
    const after = await api("POST", "/retrieve", { query: "retry HTTP 429 backoff", threshold: 0.2 });
    expect(after.body.items[0].id).toBe(ids[0]);
    expect(after.body.items.every((i: any) => i.match === "vector")).toBe(true);
    const models = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec<{ model: string; n: number }>("SELECT model, count(*) AS n FROM vectors GROUP BY model").toArray(),
    );
    expect(models).toEqual([{ model: "hash:praxis-hash-v1:256", n: 4 }]);
    expect((await api("GET", `/experiences/${ids[0]}`)).body.embedding).toEqual({ model: "hash:praxis-hash-v1:256", current: true });
    expect((await valueOf(stub.reembed({ model: "hash:praxis-hash-v1:384" }))).stale).toBe(true);
  });

  it("refuses an embedder this deployment cannot run and keeps the old one", async () => {
    const { api } = await agentFixture();
    const r = await api("PATCH", "/config", { embedder: { provider: "workers-ai" } });
    expect(r.status).toBe(422);
    expect(r.body.errors[0].path).toBe("embedder");
    expect((await api("GET", "/config")).body.embedder).toBeNull();
  });
});
